package e2e

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeSection is the README section TestReadmeKafka runs.
const readmeSection = "## Kafka in 2 minutes"

// codeBlock is a fenced block of the README: its language and text.
type codeBlock struct {
	lang, text string
}

// readmeBlocks returns the fenced blocks of one section of a Markdown file.
func readmeBlocks(t *testing.T, path, heading string) []codeBlock {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", path, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []codeBlock
	var cur *codeBlock
	for line := range strings.Lines(section) {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &codeBlock{lang: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line
		}
	}
	return blocks
}

// trimLines drops trailing white space from every line and the ends of s,
// as a Markdown file keeps none.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// TestReadmeKafka runs the README's "Kafka in 2 minutes" as a user would:
// bin/devkafka and bin/streamdb in place of `make kafka` and `make run`
// (on free ports rather than 9092 and 6875), then every other command
// verbatim with kcat and psql. A command followed by a text block must
// print it, once the source has caught up; the \watch command runs in the
// background and must have shown the view's final state.
func TestReadmeKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries; skipped with -short")
	}
	for _, tool := range []string{"kcat", "psql"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian packages kcat and postgresql-client; CI installs both)", tool)
		}
	}
	blocks := readmeBlocks(t, "../README.md", readmeSection)
	if len(blocks) == 0 || !strings.Contains(blocks[0].text, "make kafka") || !strings.Contains(blocks[0].text, "make run") {
		t.Fatalf("the section should start with the make kafka / make run block, found %q", blocks)
	}
	_, brokerAddr := startDevkafka(t, "--partitions", "3")
	_, addr := startStreamdb(t, t.TempDir())
	_, port, _ := strings.Cut(addr, ":")
	localize := strings.NewReplacer("127.0.0.1:9092", brokerAddr, "-p 6875", "-p "+port).Replace
	runReadme(t, blocks[1:], localize)
}

// runReadme runs a README section's blocks after its first: each sh
// block as a shell script, after localize has pointed its commands at the
// test's servers. A block followed by a text block must print it, once
// the servers have caught up (it is retried until then); a block with a
// \watch command runs in the background until the first text block after
// it has been printed, and must have shown the first table of that block.
func runReadme(t *testing.T, blocks []codeBlock, localize func(string) string) {
	t.Helper()
	var watch *shell
	var watchWant string
	for i := 0; i < len(blocks); i++ {
		blk := blocks[i]
		if blk.lang != "sh" {
			t.Fatalf("block %d: a %s block that follows no command", i, blk.lang)
		}
		script := localize(blk.text)
		var want string
		if i+1 < len(blocks) && blocks[i+1].lang == "text" {
			want = trimLines(blocks[i+1].text)
			i++
		}
		if strings.Contains(script, `\watch`) {
			watch = startShell(t, script)
			continue
		}
		if want == "" {
			if out, err := runShell(script); err != nil {
				t.Fatalf("%s\nfailed: %v\n%s", blk.text, err, out)
			}
			continue
		}
		if watch != nil && watchWant == "" {
			watchWant, _, _ = strings.Cut(want, "\n\n")
		}
		deadline := time.Now().Add(waitTimeout)
		for {
			out, err := runShell(script)
			if err == nil && trimLines(out) == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s\nprinted\n%s\nwant\n%s\n(error: %v)", blk.text, out, want, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if watch != nil {
			time.Sleep(1500 * time.Millisecond) // one more tick of the watch
			if out := trimLines(watch.stop()); !strings.Contains(out, watchWant) {
				t.Errorf("the watch never showed\n%s\nit printed\n%s", watchWant, out)
			}
			watch = nil
		}
	}
	if watchWant == "" {
		t.Fatal(`the section has no \watch command followed by the output it must show`)
	}
}

// shellEnv keeps the user's psqlrc out of the commands.
var shellEnv = append(os.Environ(), "PSQLRC=/dev/null", "PGCONNECT_TIMEOUT=10")

func runShell(script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Env = shellEnv
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// shell is a script running in the background in a process group of its
// own, so that stopping it stops psql too.
type shell struct {
	cmd  *exec.Cmd
	out  *logBuffer
	done chan struct{}
}

func startShell(t *testing.T, script string) *shell {
	t.Helper()
	s := &shell{cmd: exec.Command("sh", "-c", script), out: &logBuffer{}, done: make(chan struct{})}
	s.cmd.Env = shellEnv
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.stop() })
	return s
}

// stop kills the script's process group and returns its output.
func (s *shell) stop() string {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
	return s.out.String()
}

// readmeChanges is the README section TestReadmeChanges runs.
const readmeChanges = "## Getting changes out: SUBSCRIBE and sinks"

// timestamps matches the mz_timestamps of the README's examples.
var timestamps = regexp.MustCompile(`\b1\d{12}\b`)

// TestReadmeChanges runs the README's "Getting changes out" as a user
// would, against bin/devkafka and bin/streamdb: every command verbatim
// with psql and kcat, each followed by a text block printing it (once
// the changes are through), with timestamps, which differ from run to
// run, left out of the comparison. The COPY (SUBSCRIBE) command runs in
// the background, as in a terminal of its own, and must have printed its
// block by the end.
func TestReadmeChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries; skipped with -short")
	}
	for _, tool := range []string{"kcat", "psql", "stdbuf"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian packages kcat, postgresql-client and coreutils; CI installs them)", tool)
		}
	}
	blocks := readmeBlocks(t, "../README.md", readmeChanges)
	_, brokerAddr := startDevkafka(t, "--partitions", "3")
	_, addr := startStreamdb(t, t.TempDir())
	_, port, _ := strings.Cut(addr, ":")
	localize := strings.NewReplacer("127.0.0.1:9092", brokerAddr, "-p 6875", "-p "+port).Replace
	normalize := func(s string) string { return timestamps.ReplaceAllString(trimLines(s), "<time>") }

	var sub *shell
	var subWant string
	for i := 0; i < len(blocks); i++ {
		blk := blocks[i]
		if blk.lang != "sh" {
			t.Fatalf("block %d: a %s block that follows no command", i, blk.lang)
		}
		script := localize(blk.text)
		var want string
		if i+1 < len(blocks) && blocks[i+1].lang == "text" {
			want = normalize(blocks[i+1].text)
			i++
		}
		if strings.Contains(script, "COPY (SUBSCRIBE") {
			// A terminal prints each line as it comes; a pipe would not.
			sub, subWant = startShell(t, "stdbuf -oL "+script), want
			time.Sleep(time.Second) // the subscription starts before the changes
			continue
		}
		if want == "" {
			if out, err := runShell(script); err != nil {
				t.Fatalf("%s\nfailed: %v\n%s", blk.text, err, out)
			}
			continue
		}
		deadline := time.Now().Add(waitTimeout)
		for {
			out, err := runShell(script)
			if err == nil && normalize(out) == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s\nprinted\n%s\nwant\n%s\n(error: %v)", blk.text, out, want, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if sub == nil {
		t.Fatal("the section has no COPY (SUBSCRIBE) command")
	}
	if out := normalize(sub.stop()); !strings.Contains(out, subWant) {
		t.Errorf("the subscription never printed\n%s\nit printed\n%s", subWant, out)
	}
}
