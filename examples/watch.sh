#!/bin/sh
# Prints each press of volume-guard as it happens, like `volume-guard watch`, with socat and jq.
#
#   examples/watch.sh           # live presses
#   examples/watch.sh 41        # first the presses after #41 that the daemon still has
#
# The socket: $VOLUME_GUARD_SOCKET, else $XDG_RUNTIME_DIR/volume-guard.sock.
set -eu

socket=${VOLUME_GUARD_SOCKET:-${XDG_RUNTIME_DIR:-/tmp/volume-guard-$(id -u)}/volume-guard.sock}
if [ $# -gt 0 ]; then
    request=$(jq -cn --argjson since "$1" '{cmd: "subscribe", since: $since}')
else
    request='{"cmd":"subscribe"}'
fi

# socat half-closes once the request is sent and, with -t, keeps reading until the daemon closes:
# a subscriber that only half-closed goes on receiving presses.
printf '%s\n' "$request" |
    socat -t 1000000000 - "UNIX-CONNECT:$socket" |
    jq -r --unbuffered '
        if .type == "press" then
            "\(.time)  \(.direction)\(if .count > 1 then " x\(.count)" else "" end)  \(.sink)  #\(.seq)"
        elif .type == "state" then
            "-- \(.state)\(if .sink then " (\(.sink))" else "" end)"
        elif .type == "subscribed" and .gap then
            "-- some presses are no longer in the daemon'"'"'s history; replaying from the oldest it has"
        elif .type == "error" then
            "-- error \(.code): \(.message)"
        else
            empty
        end'
