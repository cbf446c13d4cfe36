#!/bin/sh
# Interesting while the package (a copy of semver 7, as npm bundles it, with a planted bug) says
# that 1.3.5 satisfies ~1.2.3 while 1.2.4 does and 2.0.0 does not. The package is the directory
# given as the argument (shrinkray, whittle), else the working directory.
if [ -n "$1" ] && [ -d "$1" ]; then pkg=$1; else pkg=.; fi
pkg=$(cd "$pkg" && pwd) || exit 1
timeout 10 node -e '
const s = require(process.argv[1]);
const ok = s.satisfies("1.3.5", "~1.2.3") === true && s.satisfies("1.2.4", "~1.2.3") === true
  && s.satisfies("2.0.0", "~1.2.3") === false;
process.exit(ok ? 0 : 1);
' "$pkg" >/dev/null 2>&1
