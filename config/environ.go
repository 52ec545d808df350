package config

import "os"

func osEnviron() []string { return os.Environ() }
