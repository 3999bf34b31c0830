#!/usr/bin/env bash
# A scripted stand-in for an AI coding agent CLI. It prints coloured
# progress like the real ones, then ends the way DEMO_MODE says:
#   complete     writes its result and exits 0
#   implement    edits src/parser.go (a change to review and merge), then
#                writes its result and exits 0
#   flaky        attempt 1 exits 0 without a result; later attempts complete
#   alias        writes result.md (an alias) instead of result.json
#   crash        writes its result, then exits 1
#   interactive  waits for its prompt to be typed, writes the result and
#                stays open, as an interactive agent session does
# rostra gives it ROSTRA_WORKER, ROSTRA_ATTEMPT and the prompt. DEMO_STEP
# is the seconds each step of work takes (default 0.6; the tests make it
# short).
set -u
agent=$1
prompt=${2:-}
out="out/$ROSTRA_WORKER"
mkdir -p "$out"
rm -f "$out"/result.*   # a result left by an earlier run must not count for this one
bold=$'\e[1m' dim=$'\e[2m' green=$'\e[32m' yellow=$'\e[33m' red=$'\e[31m' cyan=$'\e[36m' reset=$'\e[0m'

say() { printf '%s\n' "$*"; }
work() {
	local steps=$1 i
	local what=("reading the code" "planning edits" "editing files" "running the tests" "checking the diff")
	for ((i = 1; i <= steps; i++)); do
		printf '%s[%s]%s step %d/%d %s%s%s\n' "$cyan" "$agent" "$reset" "$i" "$steps" "$dim" "${what[$(((i - 1) % 5))]}" "$reset"
		sleep "${DEMO_STEP:-0.6}"
	done
}

say "${bold}${agent}${reset} · worker ${ROSTRA_WORKER} · attempt ${ROSTRA_ATTEMPT}"
case ${DEMO_MODE:-complete} in
complete)
	say "task: $prompt"
	work 8
	printf '{"worker":"%s","attempt":%s,"ok":true}\n' "$ROSTRA_WORKER" "$ROSTRA_ATTEMPT" >"$out/result.json"
	say "${green}done${reset}: wrote $out/result.json"
	;;
implement)
	say "task: $prompt"
	work 8
	cat >>src/parser.go <<'GO'

// Count is how many words line holds.
func Count(line string) int { return len(Parse(line)) }
GO
	printf '{"worker":"%s","attempt":%s,"ok":true}\n' "$ROSTRA_WORKER" "$ROSTRA_ATTEMPT" >"$out/result.json"
	say "${green}done${reset}: added Count to src/parser.go, wrote $out/result.json"
	;;
flaky)
	say "task: $prompt"
	work 4
	if [ "$ROSTRA_ATTEMPT" = 1 ]; then
		say "${yellow}lost the thread; ending without a result${reset}"
		exit 0
	fi
	printf '{"worker":"%s","attempt":%s,"ok":true}\n' "$ROSTRA_WORKER" "$ROSTRA_ATTEMPT" >"$out/result.json"
	say "${green}done on attempt $ROSTRA_ATTEMPT${reset}"
	;;
alias)
	say "task: $prompt"
	work 6
	printf '# Review\n\nLooks good.\n' >"$out/result.md"
	say "${green}done${reset}: wrote $out/result.md"
	;;
crash)
	say "task: $prompt"
	work 6
	printf '{"worker":"%s","ok":true}\n' "$ROSTRA_WORKER" >"$out/result.json"
	say "${red}panic: telemetry upload failed${reset} (the result is written)"
	exit 1
	;;
interactive)
	say "${dim}interactive session; waiting for a task${reset}"
	printf '> '
	IFS= read -r task
	say "got task: $task"
	work 4
	printf '{"worker":"%s","task":"%s"}\n' "$ROSTRA_WORKER" "${task//\"/}" >"$out/result.json"
	say "${green}wrote $out/result.json${reset}; session stays open"
	while IFS= read -r line; do say "you said: $line"; done
	;;
esac
