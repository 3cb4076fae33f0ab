import SongboxCLI

SongboxCommand.main()
