"""`python -m jobgrant.cli`, as the tests and bench/kernel.py run the command."""

from jobgrant.cli import main

main()
