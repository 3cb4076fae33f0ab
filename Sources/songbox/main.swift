import SongboxCLI

await SongboxProgram.main()
