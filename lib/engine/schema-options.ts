/** Schema files (under policies/) with a precompiled validator, by export name. */
export const PRECOMPILED_SCHEMAS: Record<string, string> = { policy: 'policy.schema.json', config: 'config.schema.json' };

/**
 * The ajv options of every policies/ schema validator (the runtime fallback too); verbose gives
 * errors their data and parent schema, for "did you mean".
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const;

export const GENERATED_FILE = 'lib/engine/schema-validators.generated.ts';

/**
 * The schema as the generated validator was made from it: canonical JSON (no crypto hash: loading
 * node's crypto costs more start-up time than comparing a few kilobytes).
 */
export function schemaFingerprint(text: string): string {
  return JSON.stringify(JSON.parse(text));
}
