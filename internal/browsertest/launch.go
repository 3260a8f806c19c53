package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chromedp/chromedp"
)

// launch starts browser headless with a fresh profile in a temporary folder
// and returns a chromedp context on a blank tab. stop closes the browser,
// kills every process that still uses the profile (chromedp does that for
// the folders it owns; the profile here is ours, so stop does it too) and
// removes the profile; it is safe to call more than once.
func launch(ctx context.Context, browser string, o Options) (tab context.Context, profile string, stop func(), err error) {
	profile, err = os.MkdirTemp("", "gobench-browsertest-")
	if err != nil {
		return nil, "", nil, fmt.Errorf("browser profile: %w", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.UserDataDir(filepath.Join(profile, "profile")),
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.DisableGPU,
		chromedp.NoSandbox, // root in a container has no usable sandbox
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		// No request may leave the machine even if interception missed
		// one: every host name fails to resolve and any proxied scheme
		// goes to a closed local port.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("proxy-server", "127.0.0.1:9"),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Env(browserEnv(browser, profile)...),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(actx)
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancelTab()
		cancelAlloc() // waits for the process to exit
		killProfileUsers(filepath.Join(profile, "profile"))
		os.RemoveAll(profile)
	}
	// The first Run starts the browser and opens the tab.
	if err := chromedp.Do(tab); err != nil {
		stop()
		return nil, "", nil, fmt.Errorf("start %s: %w", browser, err)
	}
	return tab, filepath.Join(profile, "profile"), stop, nil
}

// browserEnv is the environment the browser runs with: HOME in the
// temporary folder (a fresh profile reads nothing of the user's) and, for
// the pinned build, its own shared libraries (lib) and a fontconfig file that
// finds its fonts and the system's.
func browserEnv(browser, profile string) []string {
	env := []string{"HOME=" + profile}
	dir := filepath.Dir(browser)
	if st, err := os.Stat(filepath.Join(dir, "lib")); err == nil && st.IsDir() {
		env = append(env, "LD_LIBRARY_PATH="+filepath.Join(dir, "lib"))
	}
	if st, err := os.Stat(filepath.Join(dir, "fonts")); err == nil && st.IsDir() {
		conf := fmt.Sprintf(`<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>%s</dir>
  <dir>/usr/share/fonts</dir>
  <cachedir>%s</cachedir>
</fontconfig>
`, filepath.Join(dir, "fonts"), filepath.Join(profile, "fontcache"))
		if os.WriteFile(filepath.Join(profile, "fonts.conf"), []byte(conf), 0o644) == nil {
			env = append(env, "FONTCONFIG_PATH="+profile, "FONTCONFIG_FILE="+filepath.Join(profile, "fonts.conf"))
		}
	}
	return env
}
