#!/bin/sh
# Installs the Debian 12 packages tosac needs to build and test. Safe to re-run.
set -eu
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    build-essential cmake pkg-config \
    libcmocka-dev libprotobuf-c-dev protobuf-c-compiler libonnx-testdata >/dev/null
