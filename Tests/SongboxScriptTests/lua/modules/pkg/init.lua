return { init = true }
