#!/usr/bin/env bash
# worktree-ab.sh: four ways to make N worktrees of a 20,000-file repository,
# interleaved over two rounds, with the load beside each time. rostra uses C:
# the worktrees' records made one at a time (git cannot make two at once
# safely), their files checked out at once with checkout.workers=8.
#   A  git worktree add, one after another
#   B  A with checkout.workers=8
#   C  git worktree add --no-checkout one after another, then every
#      reset --hard at once with checkout.workers=8   (rostra)
#   D  C with one checkout worker each
# Usage: N=16 testdata/bench/worktree-ab.sh
set -eu
N=${N:-8}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/r"
cd "$root/r"
python3 -c "
import os
for d in range(200):
    p='src/pkg%03d'%d; os.makedirs(p,exist_ok=True)
    for f in range(100):
        open(p+'/file%03d.go'%f,'w').write('package p\n'+'x'*60+'\n')
"
git init -q
git add -A
git -c user.name=a -c user.email=a@a commit -qm base
workers=(-c checkout.workers=8 -c checkout.thresholdForParallelism=100)
clean() {
	for i in $(seq "$N"); do
		git worktree remove --force "$root/w-$i" 2>/dev/null || true
		git branch -qD "b$i" 2>/dev/null || true
	done
	git worktree prune
	sync
}
A() { for i in $(seq "$N"); do git worktree add -q -b "b$i" "$root/w-$i" HEAD; done; }
B() { for i in $(seq "$N"); do git "${workers[@]}" worktree add -q -b "b$i" "$root/w-$i" HEAD; done; }
C() {
	for i in $(seq "$N"); do git worktree add -q --no-checkout -b "b$i" "$root/w-$i" HEAD; done
	for i in $(seq "$N"); do (cd "$root/w-$i" && git "${workers[@]}" reset -q --hard) & done
	wait
}
D() {
	for i in $(seq "$N"); do git worktree add -q --no-checkout -b "b$i" "$root/w-$i" HEAD; done
	for i in $(seq "$N"); do (cd "$root/w-$i" && git reset -q --hard) & done
	wait
}
for round in 1 2; do
	for v in A B C D; do
		clean
		s=$(date +%s.%N)
		$v
		e=$(date +%s.%N)
		printf 'round %d %s %6.1f s  (N=%d, load %s)\n' "$round" "$v" "$(echo "$e - $s" | bc)" "$N" "$(cut -d' ' -f1 /proc/loadavg)"
	done
done
clean
