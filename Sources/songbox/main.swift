import SongboxCLI

SongboxProgram.main()
