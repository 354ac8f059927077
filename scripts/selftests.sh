#!/bin/bash
# selftests.sh ARCH: build the kselftests of selftests.list statically for
# ARCH and lay them out the way 'make -C tools/testing/selftests install'
# does (run_kselftest.sh, kselftest/runner.sh, kselftest-list.txt), so the
# guest runs them with the kernel's own runner.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: selftests.sh ARCH}
load_arch "$arch"
SYSROOT=$BUILD/sysroot/$DEB_ARCH
OBJ=$BUILD/kselftest-obj/$arch
INST=$BUILD/kselftest/$arch
HDRS=$(headers_dir "$arch")
SELFTESTS=$TREE/tools/testing/selftests

build_one() {
	local coll=$1 test=$2 dir=$3 multiarch
	multiarch=$(dpkg-architecture -a"$DEB_ARCH" -qDEB_HOST_MULTIARCH 2>/dev/null)
	[ -d "$TREE/$dir" ] || die "selftests.list: $dir is not in the kernel tree"
	mkdir -p "$OBJ/$coll"
	run_logged "$OBJ/$coll/$test.log" make -C "$TREE/$dir" \
		ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		OUTPUT="$OBJ/$coll" KHDR_INCLUDES="-isystem $HDRS" \
		EXTRA_CFLAGS="-I$SYSROOT/usr/include" \
		LDFLAGS="-static -L$SYSROOT/usr/lib/$multiarch" \
		"$OBJ/$coll/$test" ||
		die "selftest $coll:$test does not build for $arch (log: ${OBJ#"$TOP"/}/$coll/$test.log)"
	install -D -m 0755 "$OBJ/$coll/$test" "$INST/$coll/$test"
	if [ -f "$TREE/$dir/settings" ]; then
		install -m 0644 "$TREE/$dir/settings" "$INST/$coll/settings"
	fi
}

main() {
	[ -d "$HDRS" ] || die "no kernel headers in ${HDRS#"$TOP"/}: run scripts/userland.sh $arch"
	"$TOP/scripts/sysroot.sh" "$arch"
	need_cmd make "${CROSS_COMPILE}gcc"
	say "building kselftests for $arch (static)"
	rm -rf "$INST"
	mkdir -p "$INST/kselftest"
	install -m 0755 "$SELFTESTS/run_kselftest.sh" "$INST/"
	install -m 0644 "$SELFTESTS/kselftest/runner.sh" "$SELFTESTS/kselftest/ktap_helpers.sh" "$INST/kselftest/"
	install -m 0755 "$SELFTESTS/kselftest/prefix.pl" "$INST/kselftest/"
	: >"$INST/kselftest-list.txt"
	local name src coll test
	while read -r name src; do
		case "$name" in '' | '#'*) continue ;; esac
		coll=${name%%:*}
		test=${name#*:}
		case "$src" in
		kernel:*) build_one "$coll" "$test" "${src#kernel:}" ;;
		harness:*) install -D -m 0755 "$TOP/${src#harness:}" "$INST/$coll/$test" ;;
		cc:*)
			mkdir -p "$INST/$coll"
			"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror -isystem "$HDRS" \
				-o "$INST/$coll/$test" "$TOP/${src#cc:}" ||
				die "selftests.list: ${src#cc:} does not build for $arch"
			;;
		so:*)
			# a shared object beside the tests, not a test itself
			mkdir -p "$INST/$coll"
			"${CROSS_COMPILE}gcc" -shared -fPIC -O2 -Wall -Wextra -Werror -isystem "$HDRS" \
				-o "$INST/$coll/$test" "$TOP/${src#so:}" ||
				die "selftests.list: ${src#so:} does not build for $arch"
			continue
			;;
		*) die "selftests.list: bad source '$src' for $name" ;;
		esac
		echo "$coll:$test" >>"$INST/kselftest-list.txt"
	done <"$TOP/selftests.list"
	say "kselftests ready: $(wc -l <"$INST/kselftest-list.txt") tests in ${INST#"$TOP"/}"
}

main
