from contractgen.launcher import main

main()
