#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's stress-ng, unchanged, on secret memory, as nobody:
# - its secretmem stressor, made for memfd_secret(2), which must pass;
# - its memfd stressor, with tests/trinity/secret_memfd.so preloaded so
#   that its memfd_create() makes MFD_SECRET files (no mode, EXCLUSIVE)
#   and memfd_secret(2) files in turn. Secret memory refuses some of what
#   the stressor does with them (fallocate, MAP_PRIVATE, read and write),
#   so its own verdict is not the test's: it runs again and again for
#   the bound, and each run must end without an error of its own or a
#   signal, and have made secret files (the preload marks each process
#   that did).
# Either way the kernel's taint flags must not change, and any kernel
# report on the console fails the boot on the host's side.
# Skip (4): no stress-ng in the guest.

SECS=12
PRELOAD=/kselftest/trinity/secret_memfd.so

# as nobody: busybox's su, with the passwd entry the guest may lack
nobody() {
	su -s /bin/sh nobody -c "$*"
}

[ -x /usr/bin/stress-ng ] || { echo "# SKIP: no stress-ng in the guest"; exit 4; }
[ -r "$PRELOAD" ] || { echo "# no $PRELOAD"; exit 1; }
mkdir -p /etc /tmp/stress-ng && chmod 777 /tmp/stress-ng && cd /tmp/stress-ng || exit 1
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >>/etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
before=$(cat /proc/sys/kernel/tainted)
rc=0

nobody stress-ng --secretmem 2 --timeout "${SECS}s" --metrics-brief
status=$?
echo "# stress-ng --secretmem: exit $status"
[ "$status" -eq 0 ] || rc=1

# The stressor gives up after five refused operations (lseek() fails
# with ESPIPE on secret files), so it runs again and again for the bound.
# A run may end before its first lseek(), so the proof that it met secret
# files is the preload's mark, not the ESPIPE in its log.
runs=0
end=$(($(date +%s) + SECS))
while [ "$(date +%s)" -lt "$end" ]; do
	rm -f secret.mark
	nobody SECRET_MEMFD_MARK=/tmp/stress-ng/secret.mark \
		LD_PRELOAD="$PRELOAD" stress-ng --memfd 2 --memfd-bytes 2m \
		--memfd-fds 16 --timeout 2s >memfd.log 2>&1
	status=$?
	runs=$((runs + 1))
	# 0, 2 (a stressor failed) and 3 (out of resources) are its own
	# verdicts; 1 is an error of its own, above 128 a signal
	case "$status" in 0 | 2 | 3) ;; *) rc=1; cat memfd.log; break ;; esac
	[ -s secret.mark ] || { echo "# no secret files made"; rc=1; cat memfd.log; break; }
done
echo "# stress-ng --memfd with secret memfds: $runs runs, the last exit $status"
tail -3 memfd.log | sed 's/^/# /'

after=$(cat /proc/sys/kernel/tainted)
echo "# taint $before before, $after after"
[ "$before" = "$after" ] || rc=1
exit $rc
