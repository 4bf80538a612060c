#!/usr/bin/env bash
# Install the table service on Raspberry Pi OS (Bookworm), from this checkout:
#   sudo deploy/install.sh            # install or upgrade; enables the service
#   sudo deploy/install.sh --start    # … and (re)start it now
#   sudo deploy/install.sh --code-only  # the code and the mjtable user only (a hub's box)
# Idempotent: run it again after `git pull` to upgrade; without --start the service keeps
# running the old code until it is restarted. It never overwrites an existing
# /etc/mjtable/table.toml, table.env, udev rules or journald settings you have edited, nor
# the data in /var/lib/mjtable.
# See docs/parlour.md for the whole parlour (broker, hub).
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX=/opt/mjtable
CONF=/etc/mjtable
DATA=/var/lib/mjtable
USER_NAME=mjtable
START=0
CODE_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --start) START=1 ;;
    --code-only) CODE_ONLY=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "run as root: sudo $0 $*" >&2
  exit 1
fi

echo "== system packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# fonts-noto-cjk: without it every 万, 东 and 精 on the display is an empty box.
# jq: reads the service's JSON log lines (docs/parlour.md, "Log retention").
# espeak-ng, alsa-utils: the table's Mandarin voice and its player, aplay ([voice],
# docs/voice.md); installed even while the voice is off, so that turning it on is a setting.
# No compiler, no python3-dev: every dependency installs from a wheel (also on arm64).
apt-get install -y -q python3 python3-venv fonts-noto-cjk mosquitto-clients sqlite3 rsync jq \
  espeak-ng alsa-utils
# python3-lgpio: GPIO on a Pi 5 (gpiozero's lgpio pin factory). Only Raspberry Pi OS's
# archive has it; elsewhere the service runs without GPIO (gpio.enabled = false).
if apt-cache policy python3-lgpio 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  apt-get install -y -q python3-lgpio
else
  echo "   python3-lgpio is not in this system's archive (Raspberry Pi OS has it): GPIO"
  echo "   (the dice button, LEDs, buzzer: gpio.enabled = true) needs it; nothing else does"
fi

echo "== service user $USER_NAME (groups dialout, gpio, audio)"
getent group gpio >/dev/null || groupadd --system gpio
if ! id "$USER_NAME" >/dev/null 2>&1; then
  useradd --system --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin \
    --user-group "$USER_NAME"
fi
usermod -a -G dialout,gpio,audio "$USER_NAME"  # audio: the sound card, for the voice

echo "== code in $PREFIX"
install -d -m 755 "$PREFIX"
# Owned by root whoever owns the checkout; no build leftovers (they would be installed
# again by the next upgrade).
rsync -a --delete --chown=root:root --exclude .git --exclude '.venv*' --exclude data \
  --exclude '__pycache__' --exclude build --exclude '*.egg-info' "$SRC/" "$PREFIX/src/"
# System site packages: the venv sees python3-lgpio from apt (no compiler needed). A venv
# made without them (by hand) is made again.
if ! grep -qs '^include-system-site-packages = true' "$PREFIX/venv/pyvenv.cfg"; then
  rm -rf "$PREFIX/venv"
  python3 -m venv --system-site-packages "$PREFIX/venv"
fi
"$PREFIX/venv/bin/python" -m pip install --quiet --upgrade pip
"$PREFIX/venv/bin/python" -m pip install --quiet "$PREFIX/src"
rm -rf "$PREFIX/src/build" "$PREFIX"/src/*.egg-info
if [ "$CODE_ONLY" -eq 1 ]; then
  "$PREFIX/venv/bin/mjtable" version
  exit 0
fi

echo "== config in $CONF, data in $DATA"
# 755 as the unit's ConfigurationDirectory= makes it; the files in it are 640 or 600.
install -d -m 755 -o root -g root "$CONF"
if [ ! -e "$CONF/table.toml" ]; then
  install -m 640 -o root -g "$USER_NAME" "$SRC/deploy/table.example.toml" "$CONF/table.toml"
  echo "   wrote $CONF/table.toml from the example: set parlour, table, hardware, mqtt"
fi
if [ ! -e "$CONF/table.env" ]; then
  install -m 600 -o root -g root /dev/null "$CONF/table.env"
  echo "# MJTABLE_MQTT__PASSWORD=…" >"$CONF/table.env"
fi
install -d -m 750 -o "$USER_NAME" -g "$USER_NAME" "$DATA"

echo "== udev rules, journald retention, systemd unit"
if [ ! -e /etc/udev/rules.d/99-mjtable.rules ]; then
  install -m 644 "$SRC/deploy/udev/99-mjtable.rules" /etc/udev/rules.d/99-mjtable.rules
  echo "   edit /etc/udev/rules.d/99-mjtable.rules: your adapters' vendor/product/serial"
fi
udevadm control --reload || true
udevadm trigger --subsystem-match=tty || true
install -d -m 755 /etc/systemd/journald.conf.d
if [ ! -e /etc/systemd/journald.conf.d/mjtable.conf ]; then
  install -m 644 "$SRC/deploy/journald/mjtable.conf" /etc/systemd/journald.conf.d/mjtable.conf
  install -d -m 2755 -g systemd-journal /var/log/journal
  systemctl restart systemd-journald
fi
install -m 644 "$SRC/deploy/systemd/mjtable.service" /etc/systemd/system/mjtable.service
systemctl daemon-reload
systemctl enable mjtable.service
if [ "$START" -eq 1 ]; then
  systemctl restart mjtable.service
  echo "   started: journalctl -u mjtable -f"
elif systemctl is-active --quiet mjtable.service; then
  echo "   running the old code until restarted: systemctl restart mjtable (or --start)"
else
  echo "   enabled; start with: systemctl start mjtable && journalctl -u mjtable -f"
fi
"$PREFIX/venv/bin/mjtable" version
