/** A small Helm chart for tests of chart rendering and `kubegrace lint CHART_DIR`. */
import * as fs from 'fs';
import * as path from 'path';

/** Writes `files` (relative path -> text) under `dir`, creating directories; returns `dir`. */
export function writeTree(dir: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** deployment.yaml renders a ServiceAccount and a Deployment; helm's kind ordering puts service.yaml's Service between them. */
export const WEB_CHART = {
  'Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
  'values.yaml': 'replicas: 2\npreStop: false\n',
  'templates/deployment.yaml': `apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}-web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      serviceAccountName: {{ .Release.Name }}-web
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - {name: http, containerPort: 8080}
        readinessProbe:
          httpGet: {path: /ready, port: http}
        {{- if .Values.preStop }}
        lifecycle:
          preStop:
            sleep: {seconds: 5}
        {{- end }}
`,
  'templates/service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector: {app: web}
  ports:
  - {port: 80, targetPort: http}
`,
  'templates/NOTES.txt': 'thanks\n',
  'templates/_helpers.tpl': '{{- define "web.name" -}}web{{- end -}}\n',
};
