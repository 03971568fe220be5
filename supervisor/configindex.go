package supervisor

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// docIndex says where each key of a swarm.toml is and what was written
// there. go-toml's typed decoder keeps neither, and swarm's errors need
// both: "swarm.toml:12: agent "bob": cmd element 2 must be a string, not
// the number 5" names the line, the agent and the value.
//
// Paths are key paths with array elements as "#i", counted from 0:
// agent/#1/cmd/#1 is the second element of the second agent's cmd.
type docIndex struct {
	data []byte
	// places holds the first place each path appears, by pathKey.
	places map[string]place
	// keys and values map the byte offset of every key (table headers'
	// included) and of every value to its path, for the positions
	// go-toml's errors give.
	keys, values map[int][]string
	// lineStarts holds the offset of each line's first byte.
	lineStarts []int
}

// place is where a path is and what it holds.
type place struct {
	path   []string
	line   int
	offset int
	// kind is the value's kind; Table or ArrayTable for a table given by a
	// header; Invalid for a table only implied by a dotted key.
	kind unstable.Kind
	text string // a string's value, or a scalar as written
}

// pathKey joins a key path for the index.
func pathKey(path []string) string { return strings.Join(path, "\x00") }

// indexDoc indexes data, or returns the first syntax error in it.
func indexDoc(data []byte) (*docIndex, error) {
	x := &docIndex{data: data, places: map[string]place{}, keys: map[int][]string{}, values: map[int][]string{}, lineStarts: []int{0}}
	for i, b := range data {
		if b == '\n' {
			x.lineStarts = append(x.lineStarts, i+1)
		}
	}
	var p unstable.Parser
	p.Reset(data)
	arrays := map[string]int{} // array of tables → elements so far
	// resolve turns a header's dotted key into a path, stepping into the
	// last element of any array of tables it passes through.
	resolve := func(parts []string) []string {
		var path []string
		for _, k := range parts {
			path = append(path, k)
			if n, ok := arrays[pathKey(path)]; ok {
				path = append(path, "#"+strconv.Itoa(n-1))
			}
		}
		return path
	}
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			parts, offs := headerKey(e)
			table = resolve(parts)
			// [agent.env] implies the tables before its last key.
			for i := range len(parts) - 1 {
				x.key(resolve(parts[:i+1]), offs[i], unstable.Invalid)
			}
			x.header(table, offs, unstable.Table)
		case unstable.ArrayTable:
			parts, offs := headerKey(e)
			base := append(resolve(parts[:len(parts)-1]), parts[len(parts)-1])
			n := arrays[pathKey(base)]
			arrays[pathKey(base)] = n + 1
			x.header(base, offs, unstable.ArrayTable)
			table = append(base, "#"+strconv.Itoa(n))
			x.header(table, offs, unstable.Table)
		case unstable.KeyValue:
			x.keyValue(table, e)
		}
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	return x, nil
}

// headerKey returns the parts of a table header's key and their offsets.
func headerKey(e *unstable.Node) (parts []string, offsets []int) {
	it := e.Key()
	for it.Next() {
		k := it.Node()
		parts = append(parts, string(k.Data))
		offsets = append(offsets, int(k.Raw.Offset))
	}
	return parts, offsets
}

// header records a table header: each part of its key stands for the
// table, which is where go-toml places errors about it.
func (x *docIndex) header(table []string, offsets []int, kind unstable.Kind) {
	for _, off := range offsets {
		x.key(table, off, kind)
	}
}

func (x *docIndex) keyValue(table []string, kv *unstable.Node) {
	path := slices.Clone(table)
	end := 0
	it := kv.Key()
	for it.Next() {
		k := it.Node()
		path = append(path, string(k.Data))
		x.key(path, int(k.Raw.Offset), unstable.Invalid)
		end = int(k.Raw.Offset + k.Raw.Length)
	}
	v := kv.Value()
	if v.Kind == unstable.Array || v.Kind == unstable.InlineTable {
		// Arrays and inline tables have no range of their own: theirs
		// starts after the equals sign.
		end += len(x.data[end:]) - len(bytes.TrimLeft(x.data[end:], " \t"))
		end++
		end += len(x.data[end:]) - len(bytes.TrimLeft(x.data[end:], " \t"))
		x.values[end] = slices.Clone(path)
	}
	x.value(path, v)
}

// key records a key (or table header) at offset off; kind is what the
// header makes it, or Invalid until its value is seen. A path's place is
// where it first appears.
func (x *docIndex) key(path []string, off int, kind unstable.Kind) {
	x.keys[off] = slices.Clone(path)
	if _, ok := x.places[pathKey(path)]; !ok {
		x.places[pathKey(path)] = place{path: slices.Clone(path), line: x.lineOf(off), offset: off, kind: kind}
	}
}

// value records what the key at path holds, and its contents.
func (x *docIndex) value(path []string, v *unstable.Node) {
	pl, ok := x.places[pathKey(path)]
	if !ok { // an array element
		pl.path, pl.offset = slices.Clone(path), int(v.Raw.Offset)
		if v.Raw.Length == 0 {
			// An array or inline table in an array has no range of its
			// own: it is where its array is, near enough.
			pl.offset = x.places[pathKey(path[:len(path)-1])].offset
		}
		pl.line = x.lineOf(pl.offset)
	}
	if !ok || pl.kind == unstable.Invalid {
		pl.kind = v.Kind
		if v.Kind != unstable.Array && v.Kind != unstable.InlineTable {
			pl.text = string(v.Data)
		}
		x.places[pathKey(path)] = pl
	}
	if v.Raw.Length > 0 {
		x.values[int(v.Raw.Offset)] = slices.Clone(path)
	}
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				x.keyValue(path, n)
			}
		}
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); {
			if n := it.Node(); n.Kind != unstable.Comment {
				x.value(append(slices.Clip(path), "#"+strconv.Itoa(i)), n)
				i++
			}
		}
	}
}

func (x *docIndex) lineOf(off int) int {
	i, found := slices.BinarySearch(x.lineStarts, off)
	if found {
		return i + 1
	}
	return i
}

// line returns the line of path, or of its nearest ancestor with one; 0
// when none has (the file has no such key).
func (x *docIndex) line(path []string) int {
	for n := len(path); n > 0; n-- {
		if pl, ok := x.places[pathKey(path[:n])]; ok {
			return pl.line
		}
	}
	return 0
}

// offset turns go-toml's position of an error (line and column from 1,
// columns in bytes) into a byte offset.
func (x *docIndex) offset(line, col int) int {
	if line < 1 || line > len(x.lineStarts) {
		return -1
	}
	return x.lineStarts[line-1] + col - 1
}

// paths returns every path of the document, in the order of the file.
func (x *docIndex) paths() [][]string {
	var paths [][]string
	for _, pl := range x.places {
		paths = append(paths, pl.path)
	}
	slices.SortFunc(paths, func(a, b []string) int {
		return cmp.Or(x.offsetOf(a)-x.offsetOf(b), len(a)-len(b))
	})
	return paths
}

// offsetOf returns the byte offset of path, for putting keys in the order
// of the file.
func (x *docIndex) offsetOf(path []string) int { return x.places[pathKey(path)].offset }

// writtenAsTable says whether path is written as a table: under a header
// ([heartbeat]), inline ({ FOO = "bar" }), or implied by a dotted key or a
// header below it (agent.name = …, [agent.env]).
func (x *docIndex) writtenAsTable(path []string) bool {
	switch x.kind(path) {
	case unstable.Table, unstable.InlineTable, unstable.Invalid:
		return true
	}
	return false
}

// writtenAsArray says whether path is written as an array, of tables
// ([[agent]]) or inline.
func (x *docIndex) writtenAsArray(path []string) bool {
	k := x.kind(path)
	return k == unstable.ArrayTable || k == unstable.Array
}

// kind returns the kind of what is at path (see place).
func (x *docIndex) kind(path []string) unstable.Kind { return x.places[pathKey(path)].kind }

// str returns the string at path, if a string is written there.
func (x *docIndex) str(path []string) (string, bool) {
	pl, ok := x.places[pathKey(path)]
	return pl.text, ok && pl.kind == unstable.String
}

// describe names what is written at path, for an error: `the string "x"`,
// `the number 5`, `false`, `an array`, `a table`, `a date or time`.
func (x *docIndex) describe(path []string) string {
	pl := x.places[pathKey(path)]
	switch pl.kind {
	case unstable.String:
		return "the string " + strconv.Quote(pl.text)
	case unstable.Integer, unstable.Float:
		return "the number " + pl.text
	case unstable.Bool:
		return pl.text
	case unstable.Array, unstable.ArrayTable:
		return "an array"
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		return "a date or time"
	default:
		return "a table"
	}
}
