from toolweave.cli import main

main()
