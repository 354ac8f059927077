#!/bin/bash
# prepare.sh ARCH FLAVOR: what a guest boot needs: the FLAVOR kernel of
# ARCH and the userland of ARCH. The one preparation behind make run,
# shell, vm-run, check, fuzz and bench.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: prepare.sh ARCH FLAVOR}
flavor=${2:?usage: prepare.sh ARCH FLAVOR}
"$TOP/scripts/tree.sh"
"$TOP/scripts/kernel.sh" "$arch" "$flavor"
"$TOP/scripts/userland.sh" "$arch"
