/** Writes lib/engine/schema-validators.generated.ts (ajv standalone validators of policies/*.schema.json). */
import * as fs from 'fs';
import * as path from 'path';
import { generateValidatorsModule } from '../lib/engine/schema-codegen';
import { GENERATED_FILE } from '../lib/engine/schema-options';

const root = path.resolve(__dirname, '../..');
fs.writeFileSync(path.join(root, GENERATED_FILE), generateValidatorsModule(path.join(root, 'policies')));
console.log(`wrote ${GENERATED_FILE}`);
