# shellcheck shell=bash
# Sourced by the scripts that run SwiftPM. SwiftPM 6.3 leaves an empty folder
# (`TemporaryDirectory.XXXXXX`, holding only `.keep-directory`) in the temporary folder on every
# invocation that compiles a package plugin, `swift package describe` included; the test
# binaries themselves leave nothing. On exit, the script removes the ones made while it ran,
# and only those that are still empty that way.
swiftpm_tmp_root=${TMPDIR:-/tmp}
swiftpm_tmp_before=$(mktemp "$swiftpm_tmp_root/curlew-swiftpm-tmp.XXXXXX")
find "$swiftpm_tmp_root" -maxdepth 1 -name 'TemporaryDirectory.*' -type d >"$swiftpm_tmp_before" 2>/dev/null || true

swiftpm_tmp_cleanup() {
    local dir
    while IFS= read -r dir; do
        grep -qxF "$dir" "$swiftpm_tmp_before" && continue
        # Only SwiftPM's empty leftovers: nothing but `.keep-directory` inside.
        [ -z "$(find "$dir" -mindepth 1 ! -name .keep-directory -print -quit 2>/dev/null)" ] || continue
        rm -rf -- "$dir"
    done < <(find "$swiftpm_tmp_root" -maxdepth 1 -name 'TemporaryDirectory.*' -type d 2>/dev/null)
    rm -f "$swiftpm_tmp_before"
}
trap swiftpm_tmp_cleanup EXIT
