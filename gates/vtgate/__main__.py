from vtgate.cli import main

main()
