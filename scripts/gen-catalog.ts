/**
 * Writes lib/catalog/catalog.generated.ts and catalog-validators.generated.ts (the validated catalog
 * data and the policy override validator), then docs/catalog.md from the data.
 */
import * as fs from 'fs';
import * as path from 'path';
import { CATALOG_GENERATED, CATALOG_VALIDATORS_GENERATED, generateCatalogModule, generateCatalogValidatorsModule, readCatalogYaml } from '../lib/catalog/codegen';
import { CATALOG_DOC, catalogMarkdown } from '../lib/catalog/docs';
import { CatalogEntry } from '../lib/catalog';

const root = path.resolve(__dirname, '../..');
fs.writeFileSync(path.join(root, CATALOG_GENERATED), generateCatalogModule(root));
fs.writeFileSync(path.join(root, CATALOG_VALIDATORS_GENERATED), generateCatalogValidatorsModule(root));
fs.writeFileSync(path.join(root, CATALOG_DOC), catalogMarkdown((readCatalogYaml(root).raw as { entries: CatalogEntry[] }).entries));
console.log(`wrote ${CATALOG_GENERATED}, ${CATALOG_VALIDATORS_GENERATED} and ${CATALOG_DOC}`);
