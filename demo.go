// Package rostra holds what the rostra command ships inside its binary:
// the demo roster (testdata/demo: a run file, scripted fake agents and a
// small source tree) that `rostra demo` copies into a temp workspace.
package rostra

import "embed"

// Demo is testdata/demo; its run file is demo/rostra.yaml.
//
//go:embed testdata/demo/rostra.yaml testdata/demo/agents testdata/demo/src
var Demo embed.FS

// DemoRoot is Demo's top folder.
const DemoRoot = "testdata/demo"
