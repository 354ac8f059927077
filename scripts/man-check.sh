#!/bin/bash
# man-check.sh: every page in man/ must render without a warning, with
# groff's full warnings and with man(1). Prints one line per page.
. "$(dirname "$0")/lib.sh"

need_cmd groff man
bad=0
for page in "$TOP"/man/*.[1-8]; do
	out=$( { groff -man -ww -z "$page"; MANWIDTH=80 man --warnings -l "$page" >/dev/null; } 2>&1)
	if [ -n "$out" ]; then
		printf 'FAIL %s\n%s\n' "${page#"$TOP"/}" "$out"
		bad=1
	else
		printf 'ok %s\n' "${page#"$TOP"/}"
	fi
done
exit "$bad"
