// Validates exported admission objects (a JSON array in argv[2]) with kubernetes-models' validators,
// generated from a Kubernetes OpenAPI document that has admissionregistration.k8s.io/v1
// MutatingAdmissionPolicy (1.36+). ESM-only package, hence a script of its own. Prints a JSON
// array of {kind, name, error} for the objects it rejects.
import * as fs from 'fs';
import * as v1 from 'kubernetes-models/admissionregistration.k8s.io/v1';

const objects = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const bad = [];
for (const o of objects) {
  const Model = o.apiVersion === 'admissionregistration.k8s.io/v1' ? v1[o.kind] : undefined;
  if (!Model) {
    bad.push({ kind: o.kind, name: o.metadata?.name, error: `no v1 model for ${o.apiVersion} ${o.kind}` });
    continue;
  }
  try {
    new Model(o).validate();
  } catch (e) {
    bad.push({ kind: o.kind, name: o.metadata?.name, error: String(e.message ?? e) });
  }
}
process.stdout.write(JSON.stringify(bad));
