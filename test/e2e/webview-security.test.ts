import assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import type { ConsoleMessage } from 'playwright-core';
import { rangeInView } from './helpers/layout.ts';
import { workbench } from '../../scripts/vscode-host/workbench.ts';

// test/fixtures/workspace/notes holds a file whose name (given by workspace.renames.json, since
// Windows cannot check it out), headings and text carry <script>, <img onerror>, javascript:
// links and HTML entities. Had any of it been parsed as HTML, the
// script would have set document.body.dataset.pwned (CSP aside: the test must fail on markup
// injection even where the CSP would have stopped the script).
const HOSTILE_NAME = `<img src=x onerror="document.body.dataset.pwned='name'">.md`;

suite('the panel shows hostile file content as text', () => {
  test('names, titles and text with <script>, <img onerror>, javascript: links and entities show literally, and nothing runs', async () => {
    const { page, runCommand, screenshot, waitForIndex, openPanel } = workbench();
    // Chromium reports every blocked style, font or script as a console error of the frame it
    // happened in, and Playwright forwards the webview's frames' messages to the page.
    const violations: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    };
    page.on('console', onConsole);
    await waitForIndex();
    const view = await openPanel();
    const query = view.locator('#query input');
    // Once the panel has taken the focus, which would close a palette opened before it does.
    await query.waitFor();
    // An earlier suite may have loaded the panel before the listener was there: load it again, so
    // that its first render happens in view of the listener too. The mark tells the two loads apart.
    await view.locator('body').evaluate((body) => (body.dataset.loadedBeforeListener = 'yes'));
    await runCommand('Reload Webviews', 'Developer: Reload Webviews');
    await view.locator('body:not([data-loaded-before-listener]) #query input').waitFor();
    await query.fill('quokka xylophone');
    const hostile = view.locator('.result', { has: view.locator(`button.open[title*="${'onerror='}"]`) });
    await hostile.first().waitFor();
    await screenshot('panel-hostile');
    page.off('console', onConsole);
    assert.deepEqual(violations, [], 'nothing the panel shows is blocked by its CSP');
    // Rendered, not just unblocked: the text field's shadow styles (a constructable stylesheet) and
    // the stylesheets from the webview's origin (the codicon font's rules, panel.css) apply.
    const looks = await view.locator('#query').evaluate((field) => {
      const style = (element: typeof field) => field.ownerDocument.defaultView!.getComputedStyle(element);
      return {
        display: style(field).display,
        border: style(field.shadowRoot!.querySelector('.root')).borderTopWidth,
        iconFont: style(field.querySelector('.codicon')).fontFamily,
        marginTop: style(field).marginTop,
      };
    });
    const seenStyles = JSON.stringify(looks);
    assert.equal(looks.display, 'inline-block', `the text field's own styles apply: ${seenStyles}`);
    assert.equal(looks.border, '1px', `the text field's own styles apply: ${seenStyles}`);
    assert.equal(looks.marginTop, '8px', `panel.css applies: ${seenStyles}`);
    assert.match(looks.iconFont, /codicon/, `codicon.css applies: ${seenStyles}`);

    const list = view.locator('.result');
    const text = (await list.allTextContents()).join('\n');
    const snippets = (await list.locator('.snippet').allTextContents()).join('\n');
    const seen = `; shown: ${JSON.stringify(text)}`;
    assert.ok(
      text.includes(`<script>document.body.dataset.pwned='script'</script> Quokka &amp; xylophone`),
      `a <script> heading and &amp; show as their characters${seen}`,
    );
    // A heading's HTML elements are left out of its title, as Markdown renders it (src/core/chunk/markdown.ts); the rest is text.
    const headings = (await list.locator('.title').allTextContents()).join('\n');
    assert.ok(
      headings.includes(`</script> Quokka &amp; xylophone > quokka &#60;b&#62; &quot;xylophone&quot;`),
      `entities in a heading show as their characters: ${JSON.stringify(headings)}`,
    );
    assert.ok(!headings.includes(`pwned='title'`), `the heading's <img onerror> is not in its title: ${JSON.stringify(headings)}`);
    assert.ok(snippets.includes('<img src=x onerror='), `an <img onerror> in the text shows as its characters${seen}`);
    assert.ok(snippets.includes(`javascript:document.body.dataset.pwned=`), `a javascript: link shows as text${seen}`);
    assert.ok(text.includes(`notes › ${HOSTILE_NAME}`), `the file name shows as written${seen}`);
    // The name is wider than the panel: the folders and then the name give way, and the range stays in view.
    for (const where of await hostile.locator('div.where').all()) {
      assert.deepEqual(await rangeInView(where), { oneLine: true, rangeShown: true }, `${await where.innerText()}: one line, its range in view`);
    }
    const titles = await list.locator('button.open').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('title') ?? ''));
    assert.ok(
      titles.some((t) => t.includes(HOSTILE_NAME)),
      `the file name is shown as written; titles: ${JSON.stringify(titles)}`,
    );

    const page_ = await view.locator('body').evaluate((body) => ({
      pwned: body.dataset.pwned ?? null,
      images: body.ownerDocument.querySelectorAll('#app img').length,
      appScripts: body.ownerDocument.querySelectorAll('#app script').length,
      // The workbench adds a script of its own to every webview; none may come from file text.
      fileScripts: [...body.ownerDocument.scripts].filter((s) => (s.textContent ?? '').includes('pwned')).length,
      links: [...body.ownerDocument.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
      onerror: body.ownerDocument.querySelectorAll('[onerror]').length,
      csp: body.ownerDocument.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
    }));
    assert.equal(page_.pwned, null, 'no script from a file ran');
    assert.equal(page_.images, 0, 'no <img> was made from file text');
    assert.equal(page_.appScripts + page_.fileScripts, 0, 'no <script> was made from file text');
    assert.deepEqual(page_.links, [], 'no link was made from file text');
    assert.equal(page_.onerror, 0, 'no element carries an onerror attribute');

    // The policy behind all this: nothing by default, and scripts only with the nonce (no host, no inline).
    const policy = new Map<string, string[]>();
    for (const directive of page_.csp.split(';')) {
      const [name, ...values] = directive.trim().split(/\s+/);
      if (name) policy.set(name, values);
    }
    assert.deepEqual(policy.get('default-src'), ["'none'"], page_.csp);
    assert.ok(!(policy.get('style-src') ?? []).includes("'unsafe-inline'"), `no inline styles: ${page_.csp}`);
    const scriptSrc = policy.get('script-src') ?? [];
    assert.equal(scriptSrc.length, 1, page_.csp);
    assert.match(scriptSrc[0] ?? '', /^'nonce-[A-Za-z0-9+/=]{16,}'$/);
    // Other directives name only the webview's own resource origin (webview.cspSource).
    assert.doesNotMatch(page_.csp, /'unsafe-eval'|data:|http:/, 'no eval, data: or plain http sources');
  });
});
