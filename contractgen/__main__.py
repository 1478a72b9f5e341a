from contractgen.cli import main

main()
