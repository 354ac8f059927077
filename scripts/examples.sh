#!/bin/bash
# examples.sh ARCH: build every examples/*.c as a static binary for ARCH,
# against the kernel's uapi headers from the ARCH build.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: examples.sh ARCH}
load_arch "$arch"
HDRS=$(headers_dir "$arch")
OUT=$BUILD/examples/$arch

need_cmd "${CROSS_COMPILE}gcc"
[ -d "$HDRS" ] || die "no kernel headers in ${HDRS#"$TOP"/}: run scripts/userland.sh $arch"
mkdir -p "$OUT"
for src in "$TOP"/examples/*.c; do
	bin=$OUT/$(basename "$src" .c)
	"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror -isystem "$HDRS" \
		-o "$bin" "$src" || die "example ${src#"$TOP"/} does not build for $arch"
done
say "examples ready in ${OUT#"$TOP"/}"
