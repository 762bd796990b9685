from vtbisect.cli import main

main()
