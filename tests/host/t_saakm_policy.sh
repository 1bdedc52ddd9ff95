#!/bin/bash
# Host test: policy unit tests and seeded stress on libusim (tests/policy/run.sh).
exec bash "$(cd "$(dirname "$0")/../.." && pwd)/tests/policy/run.sh"
