#!/bin/sh
# Run before every build by Plugins/BuildVersionPlugin: writes OUT/BuildVersion+Generated.swift with the version
# both executables print (`--version`). GEOTRIGGER_VERSION, when set, is used as it is (Tools/package.sh sets the
# package's version); otherwise VERSION's number, "-dev", and the commit, with ", modified" when tracked files differ
# from it. The file is rewritten only when its text changes, so an unchanged version compiles nothing.
# Usage: build-version.sh PACKAGE-DIRECTORY OUT
set -eu
package=$1 out=$2
if [ -n "${GEOTRIGGER_VERSION:-}" ]; then
    version=$GEOTRIGGER_VERSION
else
    base=$(cat "$package/VERSION" 2>/dev/null || echo 0.0.0)
    commit=$(git -C "$package" rev-parse --short=10 HEAD 2>/dev/null || echo "no git commit")
    modified=$(git -C "$package" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)
    version="$base-dev ($commit${modified:+, modified})"
fi
escaped=$(printf '%s' "$version" | sed 's/\\/\\\\/g; s/"/\\"/g')
mkdir -p "$out"
file="$out/BuildVersion+Generated.swift"
text="// Written by Tools/build-version.sh before the build; not in the repository.
extension BuildVersion {
    static let generated = \"$escaped\"
}"
if [ ! -f "$file" ] || [ "$(cat "$file")" != "$text" ]; then
    printf '%s\n' "$text" > "$file"
fi
