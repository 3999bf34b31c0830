// args.go parses a subcommand's arguments with its flags anywhere among
// them, as people type them (`rostra run x.yaml --headless`); the standard
// flag package stops at the first argument that is not a flag.
package main

import "flag"

// parseArgs parses the flags of args wherever they stand and returns the
// other arguments in order. Everything after "--" is an argument.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
