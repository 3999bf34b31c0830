// part.go writes a part-run file, as docs/remote.md §One roster over many hosts
// says: the run file as the rostra on one host runs it, with the same
// name, only the workers placed on that host, no hosts: and no host:
// keys, and its workspace and state dir on that host.
//
// It is made from the YAML as written, decoded with anchors and merge
// keys resolved (so a worker left out takes no anchor another one uses)
// and key order kept, then encoded again; comments are not kept.
package runfile

import (
	"fmt"

	"github.com/goccy/go-yaml"
)

// PartFile is the run file data as the part of host runs it, in
// workspace with state dir stateDir there (both absolute on the host).
func PartFile(data []byte, host, workspace, stateDir string) ([]byte, error) {
	var top yaml.MapSlice
	if err := yaml.UnmarshalWithOptions(data, &top, yaml.UseOrderedMap()); err != nil {
		return nil, fmt.Errorf("read the run file for host %s's part: %w", host, err)
	}
	defHost := LocalHost
	out := yaml.MapSlice{}
	for _, it := range top {
		if m, ok := it.Value.(yaml.MapSlice); ok && it.Key == "defaults" {
			if h, ok := lookup(m, "host").(string); ok && h != "" {
				defHost = h
			}
			it.Value = without(m, "host")
		}
		switch it.Key {
		case "hosts", "workspace", "state_dir":
			continue
		}
		out = append(out, it)
	}
	for i, it := range out {
		if it.Key != "workers" {
			continue
		}
		list, _ := it.Value.([]any)
		var kept []any
		for _, w := range list {
			m, ok := w.(yaml.MapSlice)
			if !ok {
				continue
			}
			h, _ := lookup(m, "host").(string)
			if h == "" {
				h = defHost
			}
			if h == host {
				kept = append(kept, without(m, "host"))
			}
		}
		if len(kept) == 0 {
			return nil, fmt.Errorf("no worker of the run is placed on host %s", host)
		}
		out[i].Value = kept
	}
	out = append(yaml.MapSlice{out[0]}, append(yaml.MapSlice{
		{Key: "workspace", Value: workspace}, {Key: "state_dir", Value: stateDir},
	}, out[1:]...)...)
	b, err := yaml.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("write host %s's part: %w", host, err)
	}
	return append([]byte("# rostra: the part of the run placed on host "+host+" (docs/remote.md); made at each start\n"), b...), nil
}

func lookup(m yaml.MapSlice, key string) any {
	for _, it := range m {
		if it.Key == key {
			return it.Value
		}
	}
	return nil
}

func without(m yaml.MapSlice, key string) yaml.MapSlice {
	out := yaml.MapSlice{}
	for _, it := range m {
		if it.Key != key {
			out = append(out, it)
		}
	}
	return out
}
