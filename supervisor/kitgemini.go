package supervisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tailscale/hujson"
)

// Gemini CLI's kit is a home of its own, .swarm/kits/NAME/gemini-home,
// named by GEMINI_CLI_HOME (Gemini's home for its own files: ~/.gemini,
// ~/.env, ~/.agents). In it:
//
//   - .gemini/settings.json is the user's ~/.gemini/settings.json (read as
//     Gemini reads it, comments allowed) with swarm's MCP server (named
//     swarm, replacing one of the user's by that name; added to an
//     mcp.allowed list when the user keeps one) and swarm's hooks (after
//     the user's own for the same events). It is made anew at each start,
//     so a setting changed from inside a swarm's Gemini lasts for that
//     run: change ~/.gemini/settings.json for good.
//   - every other entry of ~/.gemini (credentials, GEMINI.md, commands,
//     extensions, history) and ~/.env and ~/.agents are links to the
//     user's, so Gemini finds them and writes through them as usual;
//     what Gemini creates that the user does not have yet stays in this
//     home.
//   - GEMINI_CLI_TRUSTED_FOLDERS_PATH names the user's trustedFolders.json
//     (unless it is set already), so that trusting a folder from a swarm's
//     Gemini is trusting it for good, as the person expects.
//
// The user's own home is GEMINI_CLI_HOME as the agent would have it, else
// its HOME.

// geminiKit wires Gemini CLI.
func geminiKit(in kitInput) kit {
	hooks := map[string]string{"BeforeAgent": "prompt", "AfterAgent": "stop", "Notification": "notification"}
	user := in.Getenv("GEMINI_CLI_HOME")
	if user == "" {
		user = in.Getenv("HOME")
	}
	if user == "" {
		user, _ = os.UserHomeDir()
	}
	userDir := filepath.Join(user, ".gemini")
	home := filepath.Join(in.Dir, "gemini-home")
	path := filepath.Join(userDir, "settings.json")
	settings, err := readGeminiSettings(path)
	if err == nil {
		err = addGeminiKit(settings, in.Exe, hooks)
	}
	if err != nil {
		return kit{Err: fmt.Errorf("%s cannot be read as Gemini reads it (%v): fix it, or set kit = false", path, err)}
	}
	k := kit{
		Env:   []string{"GEMINI_CLI_HOME=" + home},
		Files: map[string][]byte{filepath.Join(home, ".gemini", "settings.json"): mustJSON(settings)},
		Links: map[string]string{},
		Tools: true,
		Hooks: sortedKeys(hooks),
	}
	if in.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH") == "" {
		k.Env = append(k.Env, "GEMINI_CLI_TRUSTED_FOLDERS_PATH="+filepath.Join(userDir, "trustedFolders.json"))
	}
	entries, _ := os.ReadDir(userDir) // none: a user who never ran Gemini
	for _, e := range entries {
		if e.Name() != "settings.json" {
			k.Links[filepath.Join(home, ".gemini", e.Name())] = filepath.Join(userDir, e.Name())
		}
	}
	for _, name := range []string{".env", ".agents"} {
		if _, err := os.Stat(filepath.Join(user, name)); err == nil {
			k.Links[filepath.Join(home, name)] = filepath.Join(user, name)
		}
	}
	return k
}

// readGeminiSettings reads a Gemini settings file as Gemini does (JSON
// with comments); a missing file is no settings.
func readGeminiSettings(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	if data, err = hujson.Standardize(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var settings map[string]any
	if err := dec.Decode(&settings); err != nil {
		return nil, err
	}
	if settings == nil {
		return nil, errors.New("not a JSON object")
	}
	return settings, nil
}

// addGeminiKit adds swarm's server and hooks to settings.
func addGeminiKit(settings map[string]any, exe string, hooks map[string]string) error {
	servers, err := object(settings, "mcpServers")
	if err != nil {
		return err
	}
	servers["swarm"] = mcpEntry(exe, true)
	if mcp, ok := settings["mcp"].(map[string]any); ok {
		if allowed, ok := mcp["allowed"].([]any); ok && !slices.Contains(allowed, any("swarm")) {
			mcp["allowed"] = append(allowed, "swarm")
		}
	}
	table, err := object(settings, "hooks")
	if err != nil {
		return err
	}
	for event, groups := range hookTable(exe, hooks) {
		theirs, _ := table[event].([]any)
		if table[event] != nil && theirs == nil {
			return fmt.Errorf("hooks.%s is not a list", event)
		}
		table[event] = append(theirs, groups.([]any)...)
	}
	return nil
}

// object returns settings[key] as an object, made if missing.
func object(settings map[string]any, key string) (map[string]any, error) {
	switch v := settings[key].(type) {
	case nil:
		o := map[string]any{}
		settings[key] = o
		return o, nil
	case map[string]any:
		return v, nil
	default:
		return nil, fmt.Errorf("%s is not an object", key)
	}
}
