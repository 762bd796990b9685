from vtengine.cli import main

main()
