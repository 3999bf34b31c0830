#!/usr/bin/env bash
# Installs the pinned agent CLIs the real-CLI tests run (docs/agents.md)
# into a cache folder, and prints that folder's bin directory on stdout.
#
#   testdata/agents/install.sh [FOLDER]
#
# FOLDER defaults to $ROSTRA_TEST_AGENTS_CACHE or
# ~/.cache/rostra-test-agents/<hash of the pins>, so changing a pin installs
# into a new folder and an old install is never half-upgraded. When FOLDER
# already holds these pins (its .installed marker), nothing is done. The
# tests find the CLIs through ROSTRA_TEST_AGENTS (the printed folder) or the
# default folder (internal/agenttest).
set -euo pipefail

# The pins: package@version, one a line. The hash of this list names the folder.
pins='@anthropic-ai/claude-code@2.1.332
@openai/codex@0.171.0
@google/gemini-cli@0.61.0
@qwen-code/qwen-code@0.24.4'

hash=$(printf '%s\n' "$pins" | sha256sum | cut -c1-12)
dir=${1:-${ROSTRA_TEST_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rostra-test-agents/$hash}}
bin="$dir/node_modules/.bin"

if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$pins" ]; then
	echo "$bin"
	exit 0
fi

for tool in npm node; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "install.sh: $tool is not on PATH; install Node.js 20 or later (apt-get install nodejs npm)" >&2
		exit 1
	fi
done

mkdir -p "$dir"
# No update checks of npm itself, no audit: the install is pinned and the
# output stays short. Everything npm says goes to stderr; stdout is the
# folder only.
# shellcheck disable=SC2086
npm install --prefix "$dir" --no-audit --no-fund --no-update-notifier --loglevel=error \
	$pins >&2

# Each CLI must run and be the pinned version (the claude package copies
# its native binary in a postinstall script; a failed one leaves a stub).
check() { # name expected-version
	local out
	if ! out=$("$bin/$1" --version 2>/dev/null); then
		echo "install.sh: $bin/$1 --version failed after the install" >&2
		exit 1
	fi
	case $out in
	*"$2"*) ;;
	*) echo "install.sh: $bin/$1 --version says '$out', not $2" >&2; exit 1 ;;
	esac
}
while read -r pin; do
	version=${pin##*@}
	case $pin in
	@anthropic-ai/claude-code@*) check claude "$version" ;;
	@openai/codex@*) check codex "$version" ;;
	@google/gemini-cli@*) check gemini "$version" ;;
	@qwen-code/qwen-code@*) check qwen "$version" ;;
	esac
done <<<"$pins"

printf '%s\n' "$pins" >"$dir/.installed"
echo "$bin"
