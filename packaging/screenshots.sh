#!/usr/bin/env bash
# Refreshes docs/screenshots: one per tab from the real window on a virtual
# display, against a live engine that synced a generated web of trust
# (app.TestWindowScreenshots), and the tray menu (ui.TestScreenshots).
set -euo pipefail
cd "$(dirname "$0")/.."
source packaging/setup.sh
DTP_GUI_TEST=1 DTP_SCREENSHOTS=1 go test -count=1 -timeout 10m -run '^TestWindowScreenshots$' -v ./app/
DTP_SCREENSHOTS=1 go test -count=1 -run '^TestScreenshots$' ./ui/
