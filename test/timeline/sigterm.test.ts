/**
 * PID 1 that never receives SIGTERM (pid_namespaces(7): the kernel delivers a signal to a
 * namespace's init only if it handles it). Review round 20: Sonatype nxrm-ha's log sidecars run
 * `tail -n+1 -F` under `sh -c` on busybox, and every pod deletion waits the whole 120s grace period.
 */
import { parseText } from '../../lib/model/parse';
import { workloadOf } from '../../lib/model/workload';
import { sigtermIgnored } from '../../lib/timeline/sigterm';

function judge(container: string, pod = ''): string | undefined {
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
${pod}      containers:
      - ${container}
`;
  const w = workloadOf(parseText('x.yaml', text).objects[0])!;
  const r = sigtermIgnored(w, w.containers[0]);
  return r && `${r.how} | ${r.field}`;
}

describe('sigtermIgnored', () => {
  test.each([
    ['tail as command', '{name: a, image: busybox:1.36, command: [tail, -F, /log/x]}', 'tail as PID 1 | command'],
    ['sleep infinity, path-qualified', '{name: a, image: ubuntu:24.04, command: [/bin/sleep, infinity]}', 'sleep as PID 1 | command'],
    ['the busybox applet form', '{name: a, image: busybox, command: [busybox, sleep, "3600"]}', 'sleep as PID 1 | command'],
    ['args alone on busybox (no ENTRYPOINT): the nxrm-ha sidecar', "{name: a, image: busybox:1.33.1, args: [/bin/sh, -c, 'tail -n+1 -F /nexus-data/log/request.log']}", 'sh -c as PID 1 with only tail under it and no TERM trap | args'],
    ['two tails and wait', "{name: a, image: alpine, command: [sh, -c, 'tail -F a & tail -F b & wait']}", 'sh -c as PID 1 with only tail under it and no TERM trap | command'],
    ['a sleep loop', "{name: a, image: debian, command: [bash, -ec, 'while true; do sleep 30; done']}", 'bash -c as PID 1 with only sleep under it and no TERM trap | command'],
    ['echo first, then exec tail', "{name: a, image: alpine, command: [sh, -c, 'echo start; exec tail -f /dev/null']}", 'sh -c as PID 1 with only tail under it and no TERM trap | command'],
  ])('%s', (_, c, want) => expect(judge(c)).toBe(want));

  test.each([
    ['a TERM trap', "{name: a, image: alpine, command: [sh, -c, 'trap \"exit 0\" TERM; tail -F a & wait']}"],
    ['a program with a handler under the shell', "{name: a, image: alpine, command: [sh, -c, 'nginx -g \"daemon off;\"']}"],
    ['tail under tini', '{name: a, image: app, command: [tini, --, tail, -F, x]}'],
    ['args alone on an image whose ENTRYPOINT the manifest does not show', '{name: a, image: example/app:1, args: [tail, -F, x]}'],
    ['no command and no args', '{name: a, image: busybox}'],
    ['a command substitution (unknown program)', "{name: a, image: alpine, command: [sh, -c, 'tail -F $(ls /log/*)']}"],
    ['a script file', '{name: a, image: alpine, command: [sh, /run.sh]}'],
  ])('not judged: %s', (_, c) => expect(judge(c)).toBeUndefined());

  // A shell that stays PID 1 above the app: the app never gets SIGTERM (review round 21, Apache
  // Superset's celery workers under sh -c; dash 0.5.12 on Debian 12 checked: `dash -c 'sleep 30'`
  // stays the parent of sleep, while bash 5.2 execs it).
  test.each([
    ['a background job and wait', "{name: a, image: example/app:1, command: [sh, -c, 'app --serve & wait']}", 'sh -c as PID 1 (it runs app in the background and waits) | command'],
    ['a pipeline last', "{name: a, image: example/app:1, command: [bash, -c, 'app 2>&1 | tee /log/app.log']}", 'bash -c as PID 1 (it runs the pipeline app | tee last, which no shell replaces itself with) | command'],
    ['a restart loop', "{name: a, image: example/app:1, command: [sh, -c, 'while true; do app; sleep 5; done']}", 'sh -c as PID 1 (it runs app, sleep in a loop, which no shell replaces itself with) | command'],
    ['sh on a Debian-based official image: dash', "{name: a, image: python:3.12-slim, command: [sh, -c, 'cd /app && python -m server']}", 'sh -c as PID 1 (on python, /bin/sh is dash, which runs even the last command python as its child instead of replacing itself with it) | command'],
    ['a quoted separator is no separator', `{name: a, image: nginx:1.27, command: [sh, -c, "envsubst < /t > /etc/nginx/conf.d/x.conf; nginx -g 'daemon off;'"]}`, 'sh -c as PID 1 (on nginx, /bin/sh is dash, which runs even the last command nginx as its child instead of replacing itself with it) | command'],
  ])('%s', (_, c, want) => expect(judge(c)).toBe(want));

  test.each([
    ['exec before the last command', "{name: a, image: python:3.12, command: [sh, -c, 'cd /app && exec python -m server']}"],
    ['a variable assignment and exec', "{name: a, image: python:3.12, command: [sh, -c, 'OPTS=-v exec python -m server']}"],
    ['an alpine variant (busybox ash)', "{name: a, image: python:3.12-alpine, command: [sh, -c, 'python -m server']}"],
    ['bash, which execs a last simple command', "{name: a, image: python:3.12, command: [bash, -c, 'cd /app; python -m server']}"],
    ['an image whose /bin/sh is not known', "{name: a, image: example/app:1, command: [sh, -c, 'cd /app; app']}"],
    ['a redirection with &, not a background job', "{name: a, image: example/app:1, command: [sh, -c, 'app >/log 2>&1']}"],
    ['a trap that passes the signal on', `{name: a, image: example/app:1, command: [sh, -c, 'app & pid=$!; trap "kill $pid" TERM; wait']}`],
  ])('not judged: %s', (_, c) => expect(judge(c)).toBeUndefined());

  // Review round 34, report p50 item 8 (pingcap/tidb-operator v1.5.5 _start_pump.sh.tpl): /pump runs in
  // the foreground, not last, with command substitutions in its arguments and in the later branch.
  const PUMP = '/pump \\\n  -advertise-addr=`echo ${HOSTNAME}`.demo-pump:8250 \\\n  -data-dir=/data\nif [ $? == 0 ]; then\n    echo $(date -u +"[%Y/%m/%d %H:%M:%S.%3N %:z]") "pump offline, please delete my pod"\n    tail -f /dev/null\nfi';
  const FG = 'in the foreground before further commands, and no shell replaces itself with a command that is not its last';
  test.each([
    ['pump before an if block, with $(…) and backticks', `{name: a, image: pingcap/tidb-binlog:v7.5.5, command: [/bin/sh, -c, ${JSON.stringify('set -euo pipefail\n' + PUMP)}]}`, `sh -c as PID 1 (it runs pump ${FG}) | command`],
    ['the same without substitutions', `{name: a, image: pingcap/tidb-binlog:v7.5.5, command: [/bin/sh, -c, ${JSON.stringify('/pump -data-dir=/data\nif [ $? == 0 ]; then\n  echo offline\n  tail -f /dev/null\nfi')}]}`, `sh -c as PID 1 (it runs pump ${FG}) | command`],
    ['bash too, before exit', `{name: a, image: example/app:1, command: [bash, -c, 'app --serve; rc=$?; echo "exited $rc at $(date)"; exit $rc']}`, `bash -c as PID 1 (it runs app ${FG}) | command`],
    ['nested quotes in a substitution', `{name: a, image: example/app:1, command: [sh, -c, 'app --id="$(hostname | sed "s/-[0-9]*$//")" && echo "$(date +"%H:%M") done"']}`, `sh -c as PID 1 (it runs app ${FG}) | command`],
    // ("done" as an argument ends no loop: app is read as the foreground command before echo.)
    ['"done" as an argument ends no loop', "{name: a, image: example/app:1, command: [sh, -c, 'app --serve; echo done']}", `sh -c as PID 1 (it runs app ${FG}) | command`],
    // (Not crond in the foreground: it may have started a daemon and ended; the loop holds the shell.)
    ['a daemon started, then a sleep loop', "{name: a, image: example/app:1, command: [sh, -c, 'crond; while true; do sleep 60; done']}", 'sh -c as PID 1 (it runs sleep in a loop, which no shell replaces itself with) | command'],
    ['a substitution last on dash is read past', `{name: a, image: python:3.12, command: [sh, -c, 'export ID=$(hostname); python -m server --id "\`cat /id\`"']}`, 'sh -c as PID 1 (on python, /bin/sh is dash, which runs even the last command python as its child instead of replacing itself with it) | command'],
  ])('%s', (_, c, want) => expect(judge(c)).toBe(want));

  test.each([
    ['a later app is the one that runs', "{name: a, image: example/app:1, command: [sh, -c, 'migrate --up; app --serve']}"],
    ['a daemon started, then tail at the top level', "{name: a, image: example/app:1, command: [sh, -c, 'service nginx start; tail -f /var/log/nginx/access.log']}"],
    ['the program from a substitution', "{name: a, image: example/app:1, command: [sh, -c, '$(which app) --serve; echo done']}"],
    ['the program from backticks', "{name: a, image: example/app:1, command: [sh, -c, '`which app` --serve; echo done']}"],
    ['a substitution never closed', "{name: a, image: example/app:1, command: [sh, -c, 'app --id=$(hostname; echo done']}"],
    ['a case inside a substitution', "{name: a, image: example/app:1, command: [sh, -c, 'app --x=$(case $1 in a) echo 1;; esac); echo done']}"],
    ['exec before the foreground one', "{name: a, image: example/app:1, command: [sh, -c, 'exec app --serve; echo never']}"],
    ['in the background', "{name: a, image: example/app:1, command: [sh, -c, 'app --serve & echo started']}"],
    // (rook-ceph's toolbox: its loop runs in a function, called last in an if block; the reading knows no functions.)
    ['a function definition', `{name: a, image: example/app:1, command: [bash, -c, ${JSON.stringify('watch() {\n  while true; do sleep 10; DATE=$(date); done\n}\nif [ "$1" != "--skip-watch" ]; then\n  watch\nfi')}]}`],
    ['a here-document', `{name: a, image: example/app:1, command: [sh, -c, ${JSON.stringify('cat <<EOF > /etc/x.conf\nkey = $(cat /k)\nEOF\napp --serve\necho exited')}]}`],
  ])('not judged: %s', (_, c) => expect(judge(c)).toBeUndefined());

  // Review round 34, report p51 item 5 (community-charts/mlflow: command [mlflow], args [server, …] on
  // burakince/mlflow:3.15.1): not a wrapper that holds SIGTERM. MLflow's _run_server started the server
  // with a blocking subprocess and no handler through 3.8 (mlflow/mlflow@014f3730
  // mlflow/server/__init__.py: _exec_cmd(full_command, …), mlflow/utils/process.py: subprocess.run), but
  // mlflow/mlflow#20373 ("Forward SIGINT and SIGTERM from the mlflow server wrapper", merged; opened
  // 2026-01-27, after 3.8.1) starts it with synchronous=False and installs signal.signal(SIGTERM,
  // _forward_signal), which sends the signal on to uvicorn (read in a stored later master copy of
  // mlflow/server/__init__.py). 3.15.1's own fixes are #24762 and #24799, so it has it; the first
  // release with it (3.9.0 or 3.10.0) is not known here, hence no version-gated wrapper.
  test('mlflow server as PID 1 (3.15.1 forwards SIGTERM to uvicorn): not judged', () => {
    expect(judge('{name: a, image: burakince/mlflow:3.15.1, command: [mlflow], args: [server, --host=0.0.0.0, --port=5000]}')).toBeUndefined();
  });

  // Review round 37 (helm/superset on apache/superset): the image is built FROM python:*-slim-bookworm
  // (/bin/sh is dash), and its run-server.sh is a bash script that starts gunicorn without exec.
  const SUPERSET = 'apachesuperset.docker.scarf.sh/apache/superset:3.1.2';
  test.each([
    ['celery under sh -c on apache/superset (a derived Debian image)', `{name: a, image: ${SUPERSET}, command: [/bin/sh, -c, '. /app/pythonpath/superset_bootstrap.sh; celery --app=superset.tasks.celery_app:app worker']}`, 'sh -c as PID 1 (on apache/superset, built FROM python on Debian, /bin/sh is dash, which runs even the last command celery as its child instead of replacing itself with it) | command'],
    ['run-server.sh under sh -c', `{name: a, image: ${SUPERSET}, command: [/bin/sh, -c, '. /app/pythonpath/superset_bootstrap.sh; /usr/bin/run-server.sh']}`, 'sh -c as PID 1 (on apache/superset, built FROM python on Debian, /bin/sh is dash, which runs even the last command run-server.sh as its child instead of replacing itself with it) | command'],
    ['exec run-server.sh: bash takes over PID 1', `{name: a, image: apache/superset:4.0.2, command: [sh, -c, 'exec /usr/bin/run-server.sh']}`, 'run-server.sh as PID 1 (sh -c execs it) | command'],
    ['run-server.sh as the command', '{name: a, image: apache/superset:4.0.2, command: [/usr/bin/run-server.sh]}', 'run-server.sh as PID 1 | command'],
    ["the image's own CMD (run-server.sh)", '{name: a, image: apache/superset:4.0.2}', "run-server.sh as PID 1 (the image's CMD) | image"],
  ])('%s', (_, c, want) => expect(judge(c)).toBe(want));

  test('run-server.sh: gunicorn never gets SIGTERM, and the advice is to run gunicorn itself', () => {
    const w = workloadOf(parseText('x.yaml', `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: s}\nspec:\n  selector: {matchLabels: {a: s}}\n  template:\n    metadata: {labels: {a: s}}\n    spec:\n      containers:\n      - {name: a, image: ${SUPERSET}, command: [/bin/sh, -c, '/usr/bin/run-server.sh']}\n`).objects[0])!;
    const r = sigtermIgnored(w, w.containers[0])!;
    expect(r.under).toBe('gunicorn (which run-server.sh, a bash script, also starts without exec)');
    expect(r.advice).toContain('run gunicorn itself as PID 1');
    expect(r.advice).not.toContain('put exec before the last command');
  });

  test.each([
    ['exec gunicorn on apache/superset', `{name: a, image: ${SUPERSET}, command: [sh, -c, '. /app/pythonpath/superset_bootstrap.sh; exec gunicorn -b :8088 "superset.app:create_app()"']}`],
    ['gunicorn as the command on apache/superset', '{name: a, image: apache/superset:4.0.2, command: [gunicorn, -b, ":8088"]}'],
    ['bash -c on apache/superset, which execs a last simple command', "{name: a, image: apache/superset:4.0.2, command: [bash, -c, 'celery worker']}"],
    ['an image that only shares the name', "{name: a, image: example/superset:1, command: [sh, -c, 'celery worker']}"],
  ])('not judged: %s', (_, c) => expect(judge(c)).toBeUndefined());

  // Review round 34, report p48 item 1: open-webui/pipelines' ENTRYPOINT is `bash start.sh`, which
  // starts uvicorn without exec (open-webui/pipelines@26b8f20b Dockerfile:65, start.sh:153-156).
  const PIPELINES = 'ghcr.io/open-webui/pipelines:main';
  test.each([
    ["the image's own ENTRYPOINT (the chart sets neither command nor args)", `{name: a, image: ${PIPELINES}}`, "bash start.sh as PID 1 (the image's ENTRYPOINT) | image"],
    ["args alone: start.sh's arguments", `{name: a, image: ${PIPELINES}, args: [--mode, run]}`, "bash start.sh as PID 1 (the image's ENTRYPOINT, with args as its arguments) | args"],
    ['bash start.sh as the command', `{name: a, image: ${PIPELINES}, command: [bash, start.sh]}`, 'bash start.sh as PID 1 | command'],
    ['the script itself as the command', `{name: a, image: ${PIPELINES}, command: [/app/start.sh, --mode, full]}`, 'start.sh as PID 1 | command'],
    ['exec bash start.sh under sh -c', `{name: a, image: ${PIPELINES}, command: [sh, -c, 'exec bash start.sh']}`, 'bash start.sh as PID 1 (sh -c execs it) | command'],
    ['./start.sh last under sh -c (dash: python:3.11-slim-bookworm)', `{name: a, image: ${PIPELINES}, command: [sh, -c, 'cd /app && ./start.sh']}`, 'sh -c as PID 1 (on open-webui/pipelines, built FROM python on Debian, /bin/sh is dash, which runs even the last command start.sh as its child instead of replacing itself with it) | command'],
    ['./start.sh last under bash -c (execed or not, no handler)', `{name: a, image: ${PIPELINES}, command: [bash, -c, 'cd /app && ./start.sh']}`, 'start.sh last under bash -c (whether bash replaces itself with it or runs it as its child, neither passes SIGTERM on) | command'],
    ['args alone on apache/superset (no ENTRYPOINT): the command', '{name: a, image: apache/superset:4.0.2, args: [/usr/bin/run-server.sh]}', 'run-server.sh as PID 1 | args'],
  ])('%s', (_, c, want) => expect(judge(c)).toBe(want));

  test.each([
    ['start.sh --mode setup, which starts no server', `{name: a, image: ${PIPELINES}, args: [--mode, setup]}`],
    ['an argument start.sh refuses (it exits 1)', `{name: a, image: ${PIPELINES}, args: [--port, '9099']}`],
    ['the advice: setup, then exec uvicorn', `{name: a, image: ${PIPELINES}, command: [bash, -c, 'bash start.sh --mode setup && exec uvicorn main:app --host "$HOST" --port "$PORT" --forwarded-allow-ips "*"']}`],
    ['uvicorn as the command', `{name: a, image: ${PIPELINES}, command: [uvicorn, main:app, --port, '9099']}`],
    ['args alone on apache/superset that run another program', '{name: a, image: apache/superset:4.0.2, args: [gunicorn, -b, ":8088"]}'],
  ])('not judged: %s', (_, c) => expect(judge(c)).toBeUndefined());

  test("pipelines: the advice runs start.sh's setup, then execs uvicorn", () => {
    const w = workloadOf(parseText('x.yaml', `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: s}\nspec:\n  selector: {matchLabels: {a: s}}\n  template:\n    metadata: {labels: {a: s}}\n    spec:\n      containers:\n      - {name: a, image: ${PIPELINES}}\n`).objects[0])!;
    const r = sigtermIgnored(w, w.containers[0])!;
    expect(r.under).toBe('uvicorn');
    expect(r.advice).toContain(`command: [bash, -c, 'bash start.sh --mode setup && exec uvicorn main:app`);
  });

  // Review round 34, report p49 item B (Headlamp's plugin container): comments are no commands,
  // `if`/`fi` are keywords, and a block names what still runs in it.
  const HEADLAMP = (comment: string) =>
    `{name: a, image: node:lts-alpine, command: [/bin/sh, -c], args: [${JSON.stringify(
      `if [ -f "/config/plugin.yml" ]; then\n  echo "Installing plugins from config..."\n  cat /config/plugin.yml\n  ${comment}\n  export NPM_CONFIG_CACHE=/tmp/npm-cache\n  mkdir -p /tmp/npm-cache\n  npx --yes @headlamp-k8s/pluginctl@latest install --config /config/plugin.yml --folderName /headlamp/plugins --watch\nfi\n`,
    )}]}`;
  test.each([
    ['an if block: the command it still runs, not the keywords, the comment or cat', HEADLAMP('# Use a writable cache directory'), 'sh -c as PID 1 (it runs npx last in an if block, which no shell replaces itself with) | command'],
    ["an apostrophe in a comment is no quote", HEADLAMP("# npm can't write to the default cache"), 'sh -c as PID 1 (it runs npx last in an if block, which no shell replaces itself with) | command'],
    ['a trap named in a comment is no trap', "{name: a, image: alpine, command: [sh, -c, \"# no trap: tail ignores it\\nwhile true; do sleep 30; done\"]}", 'sh -c as PID 1 with only sleep under it and no TERM trap | command'],
    ['a for header runs no program', "{name: a, image: alpine, command: [sh, -c, 'for f in /log/a /log/b; do tail -F $f & done; wait']}", 'sh -c as PID 1 with only tail under it and no TERM trap | command'],
    ['a loop names its body, from its header on', "{name: a, image: example/app:1, command: [sh, -c, 'cp /cfg/a /etc/a; while true; do if [ -f /x ]; then app; fi; sleep 5; done']}", 'sh -c as PID 1 (it runs app, sleep in a loop, which no shell replaces itself with) | command'],
    ['a case arm pattern is no program', `{name: a, image: example/app:1, command: [sh, -c, ${JSON.stringify('case $MODE in\n  web) app --web ;;\n  *) app ;;\nesac')}]}`, 'sh -c as PID 1 (it runs app last in a case block, which no shell replaces itself with) | command'],
    ['a # inside a word is no comment', "{name: a, image: alpine, command: [sh, -c, 'while true; do app --color=#fff; done']}", 'sh -c as PID 1 (it runs app in a loop, which no shell replaces itself with) | command'],
  ])('%s', (_, c, want) => expect(judge(c)).toBe(want));

  test.each([
    ['exec as the last command of an if block', "{name: a, image: example/app:1, command: [sh, -c, 'if [ -f /x ]; then exec app; fi']}"],
    ['a command after a comment line, exec-ed', "{name: a, image: python:3.12, command: [sh, -c, \"# the app's server\\nexec python -m server\"]}"],
  ])('not judged: %s', (_, c) => expect(judge(c)).toBeUndefined());

  test('a Pod that runs to completion (a test Pod): not judged', () => {
    expect(judge("{name: a, image: example/app:1, command: [sh, -c, 'curl -s x | grep ok']}", '      restartPolicy: Never\n')).toBeUndefined();
  });

  test('a shared process namespace: PID 1 is the pause process, and tail gets the signal', () => {
    expect(judge('{name: a, image: busybox, command: [tail, -F, x]}', '      shareProcessNamespace: true\n')).toBeUndefined();
  });
});
