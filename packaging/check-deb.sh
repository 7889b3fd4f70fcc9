#!/usr/bin/env bash
# Checks a built .deb: its control fields and that it installs the binary,
# the menu entry, the icon and the systemd user unit; then lintian's errors,
# when lintian is installed.
set -euo pipefail
deb=${1:?usage: check-deb.sh FILE.deb}
info=$(dpkg-deb --info "$deb")
contents=$(dpkg-deb --contents "$deb")
for field in "Package: dtp-personal" "Version: " "Architecture: " "Depends: " "Description: "; do
	grep -q "^ $field" <<<"$info" || { echo "$deb: control lacks '$field'" >&2; exit 1; }
done
for path in ./usr/bin/dtp-personal ./usr/share/applications/org.dtp.personal.desktop \
	./usr/share/icons/hicolor/256x256/apps/org.dtp.personal.png ./usr/lib/systemd/user/dtp-personal.service; do
	grep -q " $path\$" <<<"$contents" || { echo "$deb: lacks $path" >&2; exit 1; }
done
grep -q '^-rwxr-xr-x root/root .* ./usr/bin/dtp-personal$' <<<"$contents" || { echo "$deb: binary not an executable owned by root" >&2; exit 1; }
unit=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/systemd/user/dtp-personal.service)
grep -qx 'ExecStart=/usr/bin/dtp-personal serve --headless' <<<"$unit" || { echo "$deb: unit does not run serve --headless" >&2; exit 1; }
if command -v lintian >/dev/null; then
	lintian --fail-on error "$deb"
fi
echo "$deb: ok"
