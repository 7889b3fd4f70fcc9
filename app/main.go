// Command dtp-personal is the DTP Personal Server: with no subcommand it runs
// the tray app with its window; subcommands script the same engine and data
// directory (SPEC §12).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"dtp-personal/engine"
	// before Fyne reads the locale: quiet in LANG=C.UTF-8
	_ "dtp-personal/app/posixlocale"
)

const usage = `dtp-personal — a personal Nostr web-of-trust server

Usage:
  dtp-personal [--data DIR] [--listen ADDR]          tray app with window (needs a display)
  dtp-personal serve --headless [--listen ADDR]      the engine without GUI; SIGINT/SIGTERM stop it
  dtp-personal relays add URL | remove URL | list [--json]
  dtp-personal roots add NPUB_OR_HEX | remove NPUB_OR_HEX | list [--json]
  dtp-personal strategy [ID] [--interval MIN]        frontier-interval | frontier-continuous | global-continuous
  dtp-personal limits [--preset small|normal|large] [--max-depth N --max-authors-per-level N ...]
  dtp-personal repo-sync service add URL | remove URL | list [--json]
  dtp-personal repo-sync bootstrap URL | --none     the relay always asked for repositories
  dtp-personal repo-sync status [--json]            repositories followed and their sync relays
  dtp-personal repo-sync local-relays allow | refuse   dial ws:// and local addresses announcements name (default refuse)
  dtp-personal access allow-host NAME | disallow-host NAME     a name this server answers to (reverse proxy)
  dtp-personal access allow-origin ORIGIN | disallow-origin ORIGIN  a web page that may use this server
  dtp-personal access trust-proxy ADDR | untrust-proxy ADDR   a reverse proxy whose X-Forwarded-For names its clients
  dtp-personal access allow-lan | disallow-lan       whether local-network peers may connect (private ranges)
  dtp-personal access list [--json]
  dtp-personal sync --once                           one frontier pass; exit 0 complete, 3 partial, 1 error
  dtp-personal status [--json]
  dtp-personal resolve SUBJECT [--context C] [--json]
  dtp-personal backup FILE                           a consistent snapshot, also while a server runs
  dtp-personal db check                              SQLite integrity_check; exit 1 when damaged
  dtp-personal db compact                            rewrite the database file: every free page back to the disk
  dtp-personal prune [--days N] [--dry-run] [--json] remove the trust events of people outside your network for N days
  dtp-personal prune --auto DAYS                     a running server prunes by itself after DAYS (0: off, the default)
  dtp-personal delete --filter JSON [--dry-run] [--json]  remove the events a NIP-01 filter matches (never your
                                                     roots', those your answers use, or a followed repository's)
  dtp-personal import FILE                           JSONL or the extension's attentionx-export (zip or events.json), through the ingest pipeline
  dtp-personal export [--kinds K,...] > FILE.jsonl   every stored event (trust and repository kinds); --kinds 32009,30617 picks kinds
  dtp-personal version                               the program's version (also --version)
  dtp-personal bench [--authors W] [--relay auto|strfry|dtp-personal] [--json]   the scale benchmark (README)

Every command takes --data DIR (default: the user data directory). -h or --help prints this.
`

// exitError carries a process exit code other than 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// errUsage marks a command line that does not parse (exit 2).
var errUsage = errors.New("usage")

func main() {
	setMemoryTarget()
	stopProfiling := startProfiling()
	err := run(os.Args[1:])
	stopProfiling()
	if err == nil {
		return
	}
	var ee *exitError
	var commandHelp helpText
	switch {
	case errors.Is(err, errUsage):
		// one line: the usage is 25 lines that would bury what went wrong
		msg := strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
		fmt.Fprintf(os.Stderr, "dtp-personal: %s (see dtp-personal --help)\n", msg)
		os.Exit(2)
	case errors.As(err, &commandHelp):
		fmt.Fprint(os.Stdout, string(commandHelp))
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(os.Stdout, usage)
	case errors.As(err, &ee):
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(os.Stderr, "dtp-personal:", ee.err)
		}
		os.Exit(ee.code)
	default:
		printError(err)
		os.Exit(1)
	}
}

// commands maps subcommand names to their implementations.
var commands = map[string]func(c *cli) error{
	"serve":     cmdServe,
	"relays":    cmdRelays,
	"roots":     cmdRoots,
	"strategy":  cmdStrategy,
	"limits":    cmdLimits,
	"repo-sync": cmdRepoSync,
	"access":    cmdAccess,
	"backup":    cmdBackup,
	"db":        cmdDB,
	"sync":      cmdSync,
	"status":    cmdStatus,
	"resolve":   cmdResolve,
	"import":    cmdImport,
	"export":    cmdExport,
	"prune":     cmdPrune,
	"delete":    cmdDelete,
	"version":   cmdVersion,
	"bench":     cmdBench,
}

func run(args []string) error {
	global := newCLI("dtp-personal")
	headless := global.fs.Bool("headless", false, "run the engine without GUI (same as serve --headless)")
	showVersion := global.fs.Bool("version", false, "print the version")
	// global flags stop at the subcommand; what follows is the subcommand's
	if err := global.fs.Parse(args); err != nil {
		return flagError(err)
	}
	if *showVersion {
		return cmdVersion(global)
	}
	rest := global.fs.Args()
	if len(rest) == 0 {
		if *headless {
			return cmdServe(global)
		}
		return runDesktop(global)
	}
	name := rest[0]
	cmd, ok := commands[name]
	if !ok {
		if name == "help" {
			return flag.ErrHelp
		}
		if near := nearestCommand(name); near != "" {
			return fmt.Errorf("%w: unknown command %q: did you mean %q?", errUsage, name, near)
		}
		return fmt.Errorf("%w: unknown command %q", errUsage, name)
	}
	sub := newCLI("dtp-personal " + name)
	*sub.dataDir, *sub.listen = *global.dataDir, *global.listen
	sub.rest = rest[1:]
	return cmd(sub)
}

// cli is one command's flags and positional arguments.
type cli struct {
	fs      *flag.FlagSet
	dataDir *string
	listen  *string
	rest    []string // the subcommand's arguments, parsed by parse
	args    []string // positional arguments after parse
}

func newCLI(name string) *cli {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// the flag package would print its error and every flag's default; main
	// prints the error alone, in one line
	fs.SetOutput(io.Discard)
	c := &cli{fs: fs}
	c.dataDir = fs.String("data", "", "data directory (default: the user data directory)")
	c.listen = fs.String("listen", "", "listen address, e.g. 127.0.0.1:7447")
	return c
}

// parse reads the subcommand's flags (declared before the call) and
// positional arguments, in any order, and refuses more than max positional
// arguments: an unquoted value with a space must not lose its second half.
func (c *cli) parse(max int) error {
	if err := c.parseAny(); err != nil {
		return err
	}
	return c.atMost(max)
}

// atMost refuses more than max positional arguments.
func (c *cli) atMost(max int) error {
	if len(c.args) <= max {
		return nil
	}
	takes := "no arguments"
	if max > 0 {
		takes = fmt.Sprintf("at most %d arguments", max)
	}
	return fmt.Errorf("%w: %s takes %s; %q left over (quote a value that contains spaces)",
		errUsage, strings.TrimPrefix(c.fs.Name(), "dtp-personal "), takes, strings.Join(c.args[max:], " "))
}

func (c *cli) parseAny() error {
	args := c.rest
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) && c.fs.Name() != "dtp-personal" {
				return c.help()
			}
			return flagError(err)
		}
		args = c.fs.Args()
		if len(args) == 0 {
			return nil
		}
		if args[0] == "--" {
			c.args = append(c.args, args[1:]...)
			return nil
		}
		c.args = append(c.args, args[0])
		args = args[1:]
	}
}

// helpText is a command's own help, asked for with COMMAND --help.
type helpText string

func (h helpText) Error() string { return string(h) }

// help is the command's line of the usage and its flags, each with what it
// sets (the limits' help lines come from settings.LimitFields).
func (c *cli) help() error {
	var b strings.Builder
	name := strings.TrimPrefix(c.fs.Name(), "dtp-personal ")
	for _, line := range strings.Split(usage, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), c.fs.Name()+" ") || strings.TrimSpace(line) == c.fs.Name() {
			b.WriteString(line + "\n")
		}
	}
	fmt.Fprintf(&b, "\nFlags of %s:\n", name)
	c.fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(&b, "  --%-28s %s\n", f.Name, f.Usage)
	})
	return helpText(b.String())
}

func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %v", errUsage, err)
}

// positional returns the i-th positional argument or "".
func (c *cli) positional(i int) string {
	if i < len(c.args) {
		return c.args[i]
	}
	return ""
}

func (c *cli) data() string {
	if *c.dataDir != "" {
		return *c.dataDir
	}
	return engine.DefaultDataDir()
}

// nearestCommand is the command name closest to a mistyped one (at most two
// edits away, or one it begins), or "" when none is close.
func nearestCommand(typed string) string {
	best, bestDist := "", 3
	for name := range commands {
		d := editDistance(typed, name)
		if len(typed) >= 3 && strings.HasPrefix(name, typed) {
			d = min(d, 1)
		}
		if d < bestDist || d == bestDist && name < best {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
