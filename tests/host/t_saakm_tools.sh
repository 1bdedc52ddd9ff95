#!/bin/bash
# Host test: tools/ unit tests (libsaakm parser, saakm CLI errors). A thin
# wrapper meant to live at tests/host/t_saakm_tools.sh; works from either
# place since both are two levels below the repository root.
exec bash "$(cd "$(dirname "$0")/../.." && pwd)/tools/tests/run.sh"
