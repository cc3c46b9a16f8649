print("whisper-server: not yet wired")
