from needlework.cli import main

main()
