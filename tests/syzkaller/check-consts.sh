#!/bin/bash
# The constants in contrib/syzkaller/memfd_secret.txt.const must be what
# the series' uapi headers say: compile each one against the kernel tree's
# linux/memfd.h and fcntl.h and compare. Prints "ok NAME" or "FAIL NAME: ..." per
# constant; exits non-zero on any FAIL.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TREE=$TOP/build/linux
CONSTS=$TOP/contrib/syzkaller/memfd_secret.txt.const
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

[ -d "$TREE/include/uapi" ] || { echo "FAIL tree: no kernel tree in build/linux (make tree)"; exit 1; }
names=$(sed -n 's/^\([A-Z_][A-Z0-9_]*\) = .*/\1/p' "$CONSTS")
{
	echo '#include <stdio.h>'
	echo '#include <linux/fcntl.h>'
	echo '#include <linux/memfd.h>'
	echo 'int main(void) {'
	for n in $names; do
		printf 'printf("%s = %%llu\\n", (unsigned long long)(%s));\n' "$n" "$n"
	done
	echo 'return 0; }'
} >"$WORK/consts.c"
# the tree's memfd.h and fcntl.h; asm/ and the rest from the system
mkdir -p "$WORK/inc/linux"
cp "$TREE/include/uapi/linux/memfd.h" "$TREE/include/uapi/linux/fcntl.h" "$WORK/inc/linux/"
gcc -I "$WORK/inc" \
	-o "$WORK/consts" "$WORK/consts.c" 2>"$WORK/cc.log" ||
	{ echo "FAIL compile: $(head -3 "$WORK/cc.log")"; exit 1; }
"$WORK/consts" >"$WORK/actual"
rc=0
for n in $names; do
	want=$(sed -n "s/^$n = //p" "$CONSTS")
	got=$(sed -n "s/^$n = //p" "$WORK/actual")
	if [ "$want" = "$got" ]; then
		echo "ok $n"
	else
		echo "FAIL $n: $CONSTS says $want, the uapi headers $got"
		rc=1
	fi
done
exit "$rc"
