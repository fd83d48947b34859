/** Writes lib/catalog/catalog.generated.ts and catalog-validators.generated.ts (the validated catalog data and the policy override validator). */
import * as fs from 'fs';
import * as path from 'path';
import { CATALOG_GENERATED, CATALOG_VALIDATORS_GENERATED, generateCatalogModule, generateCatalogValidatorsModule } from '../lib/catalog/codegen';

const root = path.resolve(__dirname, '../..');
fs.writeFileSync(path.join(root, CATALOG_GENERATED), generateCatalogModule(root));
fs.writeFileSync(path.join(root, CATALOG_VALIDATORS_GENERATED), generateCatalogValidatorsModule(root));
console.log(`wrote ${CATALOG_GENERATED} and ${CATALOG_VALIDATORS_GENERATED}`);
