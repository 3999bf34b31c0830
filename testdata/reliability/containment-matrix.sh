#!/usr/bin/env bash
# containment-matrix.sh measures which containment rostra gives each kind of
# user (docs/internals.md, "Nothing outlives rostra"), what a worker sees inside it,
# and whether an escapee tracking cannot find survives a SIGKILLed rostra.
#
# Run it as root on a scratch machine (CI's or a VM): it adds a user
# (rostra-meas) and a group (rostra-docker), and delegates a cgroup v2 to
# the user for one case. For the case without user namespaces it sets
# user.max_user_namespaces to 0 inside a user namespace of its own that
# maps every uid to itself (the limit is per namespace, and the host's
# sysctl needs CAP_SYS_RESOURCE, which a container's root may lack), so the
# host's setting is never changed. It prints one block per case and a
# table at the end.
#
#   bash testdata/reliability/containment-matrix.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/rostra-matrix.XXXXXX)
chmod 755 "$WORK"
USER_NAME=rostra-meas
GROUP=rostra-docker
PY=/usr/bin/python3

[ "$(id -u)" = 0 ] || { echo "run me as root" >&2; exit 2; }
(cd "$ROOT" && go build -o "$WORK/rostra" ./cmd/rostra)
chmod 755 "$WORK/rostra"

getent group "$GROUP" >/dev/null || groupadd "$GROUP"
id "$USER_NAME" >/dev/null 2>&1 || useradd -m -G "$GROUP" "$USER_NAME"

# A socket only the group may use, as /var/run/docker.sock is.
SOCK=$WORK/docker.sock
$PY -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])
os.chown(sys.argv[1], 0, int(sys.argv[2])); os.chmod(sys.argv[1], 0o660); s.listen(16)
while True:
    c, _ = s.accept(); c.close()
' "$SOCK" "$(getent group "$GROUP" | cut -d: -f3)" &
SOCK_PID=$!

# nouserns-run runs a command where no user namespace can be made.
mkdir -p "$WORK/nouserns"
cat >"$WORK/nouserns/main.go" <<'EOF'
package main

import (
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if os.Getenv("NOUSERNS_INSIDE") == "" {
		cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
		cmd.Env = append(os.Environ(), "NOUSERNS_INSIDE=1")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		m := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
			UidMappings: m, GidMappings: m, GidMappingsEnableSetgroups: true}
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				os.Exit(ee.ExitCode())
			}
			panic(err)
		}
		return
	}
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0); err != nil {
		panic(err)
	}
	os.Unsetenv("NOUSERNS_INSIDE")
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		panic(err)
	}
	panic(syscall.Exec(path, os.Args[1:], os.Environ()))
}
EOF
printf 'module nouserns\n' >"$WORK/nouserns/go.mod"
(cd "$WORK/nouserns" && go build -o ../nouserns-run .)

CG_MNT=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
DELEGATED=$CG_MNT/rostra-meas-delegated
cleanup() {
	kill "$SOCK_PID" 2>/dev/null || true
	pkill -KILL -f "rostra-matrix-escapee" 2>/dev/null || true
	if [ -d "$DELEGATED" ]; then
		find "$DELEGATED" -depth -type d -exec rmdir {} \; 2>/dev/null || true
	fi
}
trap cleanup EXIT

# The worker reports what it sees, then leaves an escapee (own session,
# empty environment, parent gone) and runs on until rostra is SIGKILLed.
write_run() { # dir
	mkdir -p "$1"
	cat >"$1/rostra.yaml" <<EOF
version: 1
name: matrix
providers:
  sh: { command: ["bash", "-c", "{prompt}"] }
defaults: { max_attempts: 1, stop_grace: 1s }
workers:
  - id: probe
    provider: sh
    surfaces: [wrapper]
    prompt: |
      echo "id: \$(id)"
      grep -E '^(NSpid|CapEff)' /proc/self/status | tr '\\t' ' '
      echo "processes in /proc: \$(ls /proc | grep -c '^[0-9]')"
      git init -q repo && git -C repo -c user.email=m@x -c user.name=m commit -q --allow-empty -m x && echo "git: commit ok"
      node -e 'console.log("node: uid " + process.getuid() + " groups " + process.getgroups().join(","))'
      echo "docker: \$(docker --version)"
      $PY -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("group socket: connected")' $SOCK 2>&1 | tail -1
      (env -i /usr/bin/setsid /bin/bash -c 'echo x > ready; exec -a rostra-matrix-escapee sleep 1000' & while [ ! -s ready ]; do sleep 0.01; done)
      echo "escapee out"
      exec sleep 1000
EOF
	chmod -R a+rwX "$1"
}

declare -a ROWS
run_case() { # name, command prefix...
	local name=$1
	shift
	local dir=$WORK/$(echo "$name" | tr ' /' '__')
	write_run "$dir"
	echo "=== $name"
	(cd "$dir" && "$@" "$WORK/rostra" run --headless >"$dir/out" 2>"$dir/err") &
	local runner=$!
	local log=
	for _ in $(seq 200); do
		log=$(ls "$dir"/.rostra/matrix/attempts/probe/1/output.log 2>/dev/null || true)
		[ -n "$log" ] && grep -q "escapee out" "$log" && break
		sleep 0.05
	done
	local rostra
	rostra=$(cat "$dir/.rostra/matrix/run.lock")
	kill -KILL "$rostra"
	wait "$runner" 2>/dev/null || true
	sleep 2
	local survived=no
	pgrep -f rostra-matrix-escapee >/dev/null && survived=yes
	pkill -KILL -f rostra-matrix-escapee 2>/dev/null || true
	local kind
	kind=$(cd "$dir" && "$WORK/rostra" status .rostra/matrix | awk '$1 == "probe#1" {print $3}')
	sed 's/^/    /' "$log"
	grep -h "contained by" "$dir/err" | sed 's/^/    /' || true
	echo "    containment: $kind; escapee survived SIGKILL of rostra: $survived"
	ROWS+=("| $name | $kind | $survived |")
}

as_user=(setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups env HOME="/home/$USER_NAME")

run_case "root" env
run_case "root, ROSTRA_CONTAINMENT=pid-namespace" env ROSTRA_CONTAINMENT=pid-namespace
run_case "root, ROSTRA_CONTAINMENT=tracking" env ROSTRA_CONTAINMENT=tracking
run_case "user, user namespaces allowed" "${as_user[@]}"
run_case "user, user.max_user_namespaces=0" "$WORK/nouserns-run" "${as_user[@]}"
# A cgroup delegated to the user, as systemd's user@.service is.
mkdir -p "$DELEGATED"
chown -R "$USER_NAME" "$DELEGATED"
run_case "user, delegated cgroup" sh -c 'echo $$ > '"$DELEGATED"'/cgroup.procs && exec "$@"' sh "${as_user[@]}"

echo
echo "| machine user | containment | escapee survives SIGKILL of rostra |"
echo "|---|---|---|"
printf '%s\n' "${ROWS[@]}"
