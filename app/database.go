package main

import (
	"fmt"
	"os"
)

// cmdBackup runs `backup FILE`: a consistent snapshot of the database,
// taken while a server may be running and writing.
func cmdBackup(c *cli) error {
	if err := c.parse(1); err != nil {
		return err
	}
	file := c.positional(0)
	if file == "" {
		return fmt.Errorf("%w: backup needs one FILE to write", errUsage)
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Backup(file); err != nil {
		return err
	}
	fmt.Println("backup written to", file)
	return nil
}

// cmdDB runs `db check`: SQLite's full integrity_check; exit 1 when it
// finds damage; and `db compact` (compactDB).
func cmdDB(c *cli) error {
	if err := c.parse(1); err != nil {
		return err
	}
	switch c.positional(0) {
	case "compact":
		return compactDB(c)
	case "check":
	default:
		return fmt.Errorf("%w: db %s: use db check or db compact", errUsage, c.positional(0))
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	report, err := st.IntegrityCheck()
	if err != nil {
		return err
	}
	fmt.Println(report)
	if report != "ok" {
		fmt.Fprintln(os.Stderr, "the database is damaged: restore a backup (see the README, \"Backup and restore\")")
		return &exitError{code: 1}
	}
	return nil
}
