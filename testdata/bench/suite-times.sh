#!/usr/bin/env bash
# suite-times.sh: how long `go test ./...` and `go test -race ./...` take
# at two checkouts of rostra, interleaved so both see the same load, with
# the load average before each run and each package's time.
#
#   git worktree add --detach /tmp/before <commit>
#   testdata/bench/suite-times.sh /tmp/before . 3
#
# Figures taken while other work runs on the machine are not final: the
# load is printed beside each so a reader can tell.
set -u
before=$1 after=$2 rounds=${3:-2}
logs=$(mktemp -d)
for r in $(seq "$rounds"); do
	for flags in "" "-race"; do
		for side in before after; do
			dir=${!side}
			load=$(cut -d' ' -f1-3 /proc/loadavg)
			log=$logs/$side-$r${flags:+-race}.log
			start=$(date +%s.%N)
			(cd "$dir" && go test $flags -count=1 ./... >"$log" 2>&1)
			rc=$?
			end=$(date +%s.%N)
			pkgs=$(awk '$1 == "ok" || $1 == "FAIL" { if ($3 ~ /s$/) { sub(".*/", "", $2); printf "%s %s  ", $2, $3 } }' "$log")
			printf 'round %d %-6s %-6s %6.1f s  rc=%d  load %s  | %s\n' "$r" "$side" "${flags:-plain}" "$(echo "$end - $start" | bc)" "$rc" "$load" "$pkgs"
		done
	done
done
echo "logs in $logs"
