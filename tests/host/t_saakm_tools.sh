#!/bin/bash
# Host test: tools/ unit tests (libsaakm parser, saakm CLI), a wrapper of
# tools/tests/run.sh.
exec bash "$(cd "$(dirname "$0")/../.." && pwd)/tools/tests/run.sh"
