// Package owneronly creates the directories and files that hold the user's
// data (the data directory, database backups) so that only the user can
// read them: mode 0700 and 0600 on Unix, a protected access list on
// Windows, where a file's mode bits say nothing about who may read it.
package owneronly
