import SongboxCLI

Entry.main()
