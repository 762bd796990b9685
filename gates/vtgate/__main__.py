from vtgate.cli.main import main

main()
