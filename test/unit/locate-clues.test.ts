// What `locate` reads from a pasted text before it asks the index anything: each stack frame
// format a developer pastes, path mentions, symbols, error names and quoted messages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { extractClues, MAX_INPUT_CHARS, normalisePath, splitSymbol } from '../../src/core/clues.ts';

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/locate/${name}`, import.meta.url), 'utf8');
const frames = (text: string) => extractClues(text).frames.map((f) => `${f.path}:${f.line ?? ''}${f.symbol ? ` ${f.symbol}` : ''}`);
const symbols = (text: string) => extractClues(text).symbols.map((s) => (s.qualifier ? `${s.qualifier}.${s.name}` : s.name));

test('a Python traceback gives each frame its path, line and function, innermost first as other runtimes print them, and the error its message', () => {
  const clues = extractClues(fixture('python.txt'));
  assert.deepEqual(frames(fixture('python.txt')), ['/usr/lib/python3.12/site-packages/app/payments/gateway.py:10 charge', '/home/ci/build/app/cli.py:7 main']);
  assert.deepEqual(clues.errors, ['ValueError']);
  assert.ok(clues.messages.includes('amount must be positive'));
  assert.ok(symbols(fixture('python.txt')).includes('gateway.charge'), 'the code line the frame quotes names a call');
});

test("IPython's and Jupyter's frames give each its function, innermost first, on any system's paths", () => {
  const text = [
    'KeyError                                  Traceback (most recent call last)',
    'Cell In[4], line 3',
    '----> 3 df["b"]',
    '',
    'File ~/venv/lib/python3.11/site-packages/pandas/core/frame.py:3807, in DataFrame.__getitem__(self, key)',
    '-> 3807 indexer = self.columns.get_loc(key)',
    '',
    'File C:\\Users\\ana\\venv\\Lib\\site-packages\\pandas\\core\\indexes\\base.py:3804, in Index.get_loc(self, key)',
    '-> 3804     raise KeyError(key) from err',
    "KeyError: 'b'",
  ].join('\n');
  assert.deepEqual(frames(text), [
    'C:/Users/ana/venv/Lib/site-packages/pandas/core/indexes/base.py:3804 Index.get_loc',
    '~/venv/lib/python3.11/site-packages/pandas/core/frame.py:3807 DataFrame.__getitem__',
  ]);
});

test("a chained Python traceback's frames come innermost first, the last traceback's first, beside a file:line the text names", () => {
  const text = [
    'Traceback (most recent call last):',
    '  File "app/db.py", line 3, in connect',
    'OSError: refused',
    '',
    'During handling of the above exception, another exception occurred:',
    '',
    'Traceback (most recent call last):',
    '  File "app/cli.py", line 7, in main',
    '  File "app/cli.py", line 20, in run',
    'RuntimeError: no database',
    'See app/config.py:12 for the setting.',
  ].join('\n');
  assert.deepEqual(frames(text), ['app/cli.py:20 run', 'app/cli.py:7 main', 'app/db.py:3 connect', 'app/config.py:12']);
});

test('a Node stack gives frames with functions and skips Node internals and the express frame stays a frame', () => {
  assert.deepEqual(frames(fixture('node.txt')), [
    '/srv/app/web/src/server.js:12 parseBody',
    '/srv/app/web/src/server.js:6 handleRequest',
    '/srv/app/node_modules/express/lib/router/layer.js:95 Layer.handle',
  ]);
  assert.deepEqual(extractClues(fixture('node.txt')).errors, ['TypeError']);
  assert.ok(extractClues(fixture('node.txt')).messages.includes('Cannot parse request body: expected a string'));
});

test('a trace in a JSON log line, its newlines, tabs and quotes escaped, is read as the lines it stands for', () => {
  const text = [
    String.raw`{"level":"error","exc_info":"Traceback (most recent call last):\n  File \"/srv/app/api/views.py\", line 42, in create_order\n    order = service.place(cart)\n  File \"/srv/app/orders/service.py\", line 88, in place\n    raise QuotaExceededError(\"daily order quota reached\")\norders.errors.QuotaExceededError: daily order quota reached"}`,
    String.raw`{"level":"ERROR","stack_trace":"java.lang.IllegalStateException: closed\n\tat com.acme.store.Cache.evict(Cache.java:120)\n\tat com.acme.store.Store.put(Store.java:44)\n"}`,
    String.raw`{"message":"Call to a member function load() on null","context":{"exception":"[stacktrace]\n#0 \/var\/www\/app\/Http\/Controllers\/OrderController.php(42): App\\Services\\OrderService->find()\n"}}`,
    String.raw`A string with an escape stays as written: "one\ntwo"`,
  ].join('\n');
  assert.deepEqual(frames(text), [
    '/srv/app/orders/service.py:88 place',
    '/srv/app/api/views.py:42 create_order',
    'com/acme/store/Cache.java:120 Cache.evict',
    'com/acme/store/Store.java:44 Store.put',
    '/var/www/app/Http/Controllers/OrderController.php:42',
  ]);
  const clues = extractClues(text);
  assert.ok(symbols(text).includes('OrderService.find'), 'the function the PHP entry calls is a symbol to look up');
  assert.ok(clues.errors.includes('QuotaExceededError'));
  assert.ok(clues.messages.includes('daily order quota reached'), clues.messages.join(' | '));
  assert.ok(clues.messages.includes(String.raw`one\ntwo`), clues.messages.join(' | '));
});

test("an error report in JSON gives each object's file and line as a frame: Laravel's, Sentry's, log4j's, Jackson's and stacktrace.js's", () => {
  // Laravel as curl prints it, slashes escaped: the thrown site, then each call. PHP's `function`
  // is the one the line calls: a symbol to look up, not the frame's function.
  const laravel = extractClues(fixture('laravel.json'));
  assert.deepEqual(frames(fixture('laravel.json')), [
    '/var/www/html/app/Http/Controllers/OrderController.php:18',
    '/var/www/html/vendor/laravel/framework/src/Illuminate/Routing/Controller.php:54',
    '/var/www/html/vendor/laravel/framework/src/Illuminate/Routing/ControllerDispatcher.php:43',
    '/var/www/html/vendor/laravel/framework/src/Illuminate/Routing/Route.php:260',
    '/var/www/html/public/index.php:51',
  ]);
  assert.ok(symbols(fixture('laravel.json')).includes('OrderController.show'), symbols(fixture('laravel.json')).join(' '));
  assert.ok(laravel.messages.includes('Call to a member function load() on null'));
  // Sentry, pretty-printed, the oldest frame first, each path written twice.
  const sentry = `{
  "exception": { "values": [ { "type": "QuotaExceededError", "value": "daily order quota reached",
    "stacktrace": { "frames": [
      { "filename": "api/views.py", "abs_path": "/srv/app/api/views.py", "function": "create_order", "lineno": 42, "vars": { "cart": "<Cart 12>" } },
      { "filename": "orders/service.py", "abs_path": "/srv/app/orders/service.py", "function": "place", "lineno": 88 },
      { "filename": "OrderService.java", "module": "com.acme.orders.OrderService", "function": "placeOrder", "lineno": 12 }
    ] } } ] }
}`;
  assert.deepEqual(frames(sentry), [
    'com/acme/orders/OrderService.java:12 OrderService.placeOrder',
    'orders/service.py:88 place',
    'api/views.py:42 create_order',
  ]);
  assert.deepEqual(extractClues(sentry).paths, [], 'the server-side path of a frame is the frame, no mention of its own');
  // log4j's JSON layout and a Java exception serialised by Jackson, as a log line holds them.
  const log4j = String.raw`2026-12-07T08:00:01Z {"thrown":{"extendedStackTrace":[{"class":"com.acme.store.Cache$Loader","method":"load","file":"Cache.java","line":120,"exact":false}]}}`;
  const jackson = '{"stackTrace":[{"methodName":"put","fileName":"Store.java","lineNumber":44,"className":"com.acme.store.Store","nativeMethod":false}]}';
  const browser = '[{"functionName":"parseBody","fileName":"http://localhost:3000/src/server.js","lineNumber":12,"columnNumber":9}]';
  assert.deepEqual(frames(`${log4j}\n${jackson}\n${browser}`), [
    'com/acme/store/Cache.java:120 Loader.load',
    'com/acme/store/Store.java:44 Store.put',
    '/src/server.js:12 parseBody',
  ]);
  // Pasted from the middle of a response, the first object cut off: the whole ones still count.
  const cut = fixture('laravel.json').slice(fixture('laravel.json').indexOf('"trace"') - 20);
  assert.equal(frames(cut)[0], '/var/www/html/vendor/laravel/framework/src/Illuminate/Routing/Controller.php:54');
  // A line number with no file, or a file no code has, is no frame.
  assert.deepEqual(frames('{"rules": {"max-len": ["error", {"code": 100}]}, "line": 3, "file": "notes"}'), []);
});

test('a Java trace turns the package into the folder the file lives in, without the module', () => {
  assert.deepEqual(frames(fixture('java.txt')), [
    'com/acme/orders/OrderService.java:12 OrderService.placeOrder',
    'com/acme/orders/Main.java:8 Main.main',
    'jdk/internal/reflect/DirectMethodHandleAccessor.java:103 DirectMethodHandleAccessor.invoke',
  ]);
  assert.deepEqual(extractClues(fixture('java.txt')).errors, ['NullPointerException']);
});

test("a JVM frame names the method in the class that holds it: an inner class, an anonymous one's outer class, a lambda's enclosing method", () => {
  const trace = [
    '\tat com.acme.billing.InvoiceKt$render$1.invoke(Invoice.kt:31)',
    '\tat com.acme.billing.Printer$Page.flush(Printer.kt:9)',
    '\tat com.google.gson.internal.bind.ReflectiveTypeAdapterFactory$Adapter.read(ReflectiveTypeAdapterFactory.java:397)',
    '\tat com.acme.orders.OrderService$1.run(OrderService.java:40)',
    '\tat com.acme.orders.OrderService.lambda$placeOrder$0(OrderService.java:18)',
    '\tat com.acme.orders.Queue$Worker$2.call(Queue.java:77)',
  ].join('\n');
  assert.deepEqual(frames(trace), [
    'com/acme/billing/Invoice.kt:31 InvoiceKt.render',
    'com/acme/billing/Printer.kt:9 Page.flush',
    'com/google/gson/internal/bind/ReflectiveTypeAdapterFactory.java:397 Adapter.read',
    'com/acme/orders/OrderService.java:40 OrderService.run',
    'com/acme/orders/OrderService.java:18 OrderService.placeOrder',
    'com/acme/orders/Queue.java:77 Worker.call',
  ]);
});

test("a Scala object's frame and a Scala lambda name the method, as javac's lambdas do", () => {
  assert.deepEqual(frames('\tat com.acme.Main$.main(Main.scala:5)\n\tat com.acme.Jobs$.$anonfun$schedule$1(Jobs.scala:21)'), [
    'com/acme/Main.scala:5 Main.main',
    'com/acme/Jobs.scala:21 Jobs.schedule',
  ]);
});

test("a .NET frame names the method the compiler's lambdas, async state machines and nested classes come from", () => {
  const trace = [
    'System.NullReferenceException: Object reference not set to an instance of an object.',
    '   at MyApp.Services.OrderService.<PlaceOrderAsync>d__5.MoveNext() in /src/MyApp/Services/OrderService.cs:line 42',
    '   at MyApp.Controllers.OrdersController.<>c__DisplayClass3_0.<Create>b__0(Item item) in /src/MyApp/Controllers/OrdersController.cs:line 17',
    '   at MyApp.Data.Store+Cache.Get(String key) in /src/MyApp/Data/Store.cs:line 9',
  ].join('\n');
  assert.deepEqual(frames(trace), [
    '/src/MyApp/Services/OrderService.cs:42 OrderService.PlaceOrderAsync',
    '/src/MyApp/Controllers/OrdersController.cs:17 OrdersController.Create',
    '/src/MyApp/Data/Store.cs:9 Cache.Get',
  ]);
});

test("a Flutter error's frames name their methods, a package's files under its lib/ folder; the Dart SDK's frames are none", () => {
  const trace = [
    'The following _TypeError was thrown building ProfilePage(dirty):',
    'Null check operator used on a null value',
    '',
    '#0      int._parse (dart:core-patch/integers_patch.dart:120:12)',
    '#1      ProfilePage.build (package:my_app/pages/profile_page.dart:42:31)',
    '#2      _FormState.initState.<anonymous closure> (package:my_app/widgets/form.dart:18:7)',
    '#3      StatelessElement.build (package:flutter/src/widgets/framework.dart:5687:49)',
    '#4      _rootRun (dart:async/zone.dart:1399:13)',
  ].join('\n');
  assert.deepEqual(frames(trace), [
    'my_app/lib/pages/profile_page.dart:42 ProfilePage.build',
    'my_app/lib/widgets/form.dart:18 _FormState.initState',
    'flutter/lib/src/widgets/framework.dart:5687 StatelessElement.build',
  ]);
});

test("an Elixir error's frames name their module's function", () => {
  const trace = [
    '** (FunctionClauseError) no function clause matching in MyApp.Worker.handle_call/3',
    '    (my_app 0.1.0) lib/my_app/worker.ex:12: MyApp.Worker.handle_call(:bad, {#PID<0.1.0>, #Reference<0.1.2.3>}, %{})',
    '    (stdlib 5.0) gen_server.erl:1113: :gen_server.try_handle_call/4',
  ].join('\n');
  assert.deepEqual(frames(trace), ['lib/my_app/worker.ex:12 Worker.handle_call', 'gen_server.erl:1113 gen_server.try_handle_call']);
  assert.deepEqual(extractClues(trace).errors, ['FunctionClauseError']);
});

test("an Erlang error's frame names its module's function, as `in function` says it", () => {
  const trace = [
    '** exception error: no match of right hand side value {error,enoent}',
    '     in function  my_app_server:init/1 (src/my_app_server.erl, line 34)',
    '     in call from gen_server:init_it/2 (gen_server.erl, line 423)',
  ].join('\n');
  assert.deepEqual(frames(trace), ['src/my_app_server.erl:34 my_app_server.init', 'gen_server.erl:423 gen_server.init_it']);
});

test("Perl's die and Carp's callers give each place its line, and a die's text its message", () => {
  const trace = ["Can't open config file at lib/App/Config.pm line 42.", "\tApp::Config::load('App::Config', 'app.ini') called at bin/app.pl line 7"].join(
    '\n',
  );
  assert.deepEqual(frames(trace), ['lib/App/Config.pm:42', 'bin/app.pl:7']);
  const { messages } = extractClues(trace);
  assert.ok(messages.includes("Can't open config file"), messages.join(' | '));
  assert.ok(!messages.some((message) => message.includes('load(')), "a caller's line is no message");
  assert.ok(symbols(trace).includes('Config.load'), symbols(trace).join(' '));
});

test("Lua's traceback gives each frame its function, a method's under its table", () => {
  const trace = [
    "lua: src/game/player.lua:57: attempt to index a nil value (field 'inventory')",
    'stack traceback:',
    "\tsrc/game/player.lua:57: in method 'Player:pickup'",
    "\tsrc/game/world.lua:12: in function 'update'",
  ].join('\n');
  assert.deepEqual(frames(trace), ['src/game/player.lua:57 Player.pickup', 'src/game/world.lua:12 update']);
});

test("PowerShell's error names the script and its line", () => {
  assert.deepEqual(frames('At C:\\work\\scripts\\deploy.ps1:23 char:5\n+     Invoke-Deploy -Name $name'), ['C:/work/scripts/deploy.ps1:23']);
});

test('a Go panic pairs each function line with the file line under it', () => {
  const clues = extractClues(fixture('go.txt'));
  assert.deepEqual(frames(fixture('go.txt')), ['/home/dev/src/worker/queue/consumer.go:10 Consumer.Poll', '/home/dev/src/worker/main.go:8 main']);
  assert.ok(clues.messages.includes('queue closed while polling'));
});

test("a Go panic of today's runtime names each frame's function through its arguments, closures, type parameters and the goroutine's creator", () => {
  const text = [
    'panic: runtime error: invalid memory address or nil pointer dereference',
    '',
    'goroutine 23 [running]:',
    'github.com/gin-gonic/gin.(*Context).Render(0xc0001b2000, 0xc8, {0x0, 0x0})',
    '\t/home/me/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/context.go:1202 +0x3d',
    'example.com/app/store.(*List[...]).Push(0xc000010018?, {0x4b3c2e, 0x5})',
    '\t/home/me/app/store/list.go:17 +0x1f',
    'example.com/app/store.Map[...](...)',
    '\t/home/me/app/store/map.go:9',
    'main.main.func1()',
    '\t/home/me/app/main.go:12 +0x25',
    'created by net/http.(*Server).Serve in goroutine 1',
    '\t/usr/local/go/src/net/http/server.go:3285 +0x4b4',
  ].join('\n');
  assert.deepEqual(frames(text), [
    '/home/me/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/context.go:1202 Context.Render',
    '/home/me/app/store/list.go:17 List.Push',
    '/home/me/app/store/map.go:9 Map',
    '/home/me/app/main.go:12 main',
    '/usr/local/go/src/net/http/server.go:3285 Server.Serve',
  ]);
});

test("gin's recovery log gives each frame the function on the line below it, closures as the function they sit in", () => {
  const text = [
    '[Recovery] 2024/05/01 - 12:00:00 panic recovered:',
    'runtime error: invalid memory address or nil pointer dereference',
    '/usr/local/go/src/runtime/signal_unix.go:861 (0x44f0c5)',
    '\tsigpanic: panicmem()',
    '/home/me/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/context.go:1255 (0x8f2f1d)',
    '\t(*Context).JSON: c.Render(code, render.JSON{Data: obj})',
    '/home/me/app/handlers/user.go:42 (0x9a1b2c)',
    '\tGetUser: c.JSON(http.StatusOK, user.Profile)',
    '/home/me/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/recovery.go:102 (0x8f8b9a)',
    '\tCustomRecoveryWithWriter.func1: c.Next()',
  ].join('\n');
  assert.deepEqual(frames(text), [
    '/usr/local/go/src/runtime/signal_unix.go:861 sigpanic',
    '/home/me/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/context.go:1255 Context.JSON',
    '/home/me/app/handlers/user.go:42 GetUser',
    '/home/me/go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/recovery.go:102 CustomRecoveryWithWriter',
  ]);
});

test('a Rust panic and backtrace give the panic site, the frames with their functions and the message', () => {
  const clues = extractClues(fixture('rust.txt'));
  // The panic site comes first, and takes the function of the backtrace's frame at the same place.
  assert.deepEqual(frames(fixture('rust.txt')), [
    'src/cache.rs:8 Cache.evict',
    '/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:645',
  ]);
  assert.ok(clues.messages.includes('cache is empty, nothing to evict'));
  assert.ok(symbols(fixture('rust.txt')).includes('Cache.evict'));
});

test('a Rust panic as Rust prints it since 1.73 gives the message on the line after its place', () => {
  const text = [
    "thread 'main' panicked at src/cache.rs:8:29:",
    'cache is empty, nothing to evict',
    'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  ].join('\n');
  assert.deepEqual(frames(text), ['src/cache.rs:8']);
  assert.deepEqual(extractClues(text).messages, ['cache is empty, nothing to evict']);
});

test("links to a file on a code host and a browser's URLs give the file's path in the repository", () => {
  const text = [
    'The check at https://github.com/psf/requests/blob/main/src/requests/models.py#L120 is wrong,',
    'see also [the docs](https://github.com/psf/requests/blob/v2.31.0/docs/api.md?plain=1#L9)',
    'and https://gitlab.com/group/sub/repo/-/blob/feature/x/lib/a.rb.',
    'TypeError: body is undefined',
    '    at parseBody (http://localhost:3000/src/server.js:12:5)',
    'handle@http://localhost:3000/src/router.js:40:10',
    'dispatch/retry@http://localhost:3000/src/queue.js:8:3',
    'dispatch/<@http://localhost:3000/src/queue.js:15:7',
    '@webpack:///./src/index.js:3:1',
    'warnings at ./src/util.js:7 and ../shared/config.js:2',
  ].join('\n');
  assert.deepEqual(frames(text), [
    'src/requests/models.py:120',
    'docs/api.md:9',
    '/src/server.js:12 parseBody',
    '/src/router.js:40 handle',
    '/src/queue.js:8 retry',
    '/src/queue.js:15 dispatch',
    '/src/index.js:3',
    'src/util.js:7',
    'shared/config.js:2',
  ]);
  // A link without a line is a link still. A branch name with a slash is left in the path; its
  // tail is still the file's.
  assert.deepEqual(extractClues(text).links, ['x/lib/a.rb']);
  assert.deepEqual(extractClues(text).paths, []);
});

test("a browser's frames through webpack (Next.js's layers too) and a dev server give the module's path, line and function, past the URL's query", () => {
  const text = [
    "Uncaught TypeError: Cannot read properties of null (reading 'focus')",
    '    at Modal.open (webpack-internal:///./src/components/Modal.tsx:42:18)',
    '    at onSubmit (webpack://my-app/./src/pages/Home.jsx?a1b2:17:9)',
    '    at mountForm (http://localhost:5173/src/forms/mount.ts?t=1712345678901:10:5)',
    'flush@http://localhost:5173/src/queue.ts?v=3f2a:8:3',
    '    at Page (webpack-internal:///(app-pages-browser)/./app/page.tsx:12:5)',
    'see webpack:///./src/store.js?9c1e:30',
  ].join('\n');
  assert.deepEqual(frames(text), [
    '/src/components/Modal.tsx:42 Modal.open',
    '/src/pages/Home.jsx:17 onSubmit',
    '/src/forms/mount.ts:10 mountForm',
    '/src/queue.ts:8 flush',
    '/app/page.tsx:12 Page',
    '/src/store.js:30',
  ]);
  // A dev server's module is where the program ran, not a link to a file on a code host.
  assert.deepEqual(extractClues(text).links, []);
});

test("pytest's, gdb's and the sanitizers' frames, and C's assert, give the function with the file and line", () => {
  const pytest = [
    'tests/test_store.py:5: in test_load',
    '    assert store.load(p) == {}',
    'app/store.py:8: in load',
    '    return self.read(path)',
    'E   EOFError',
  ].join('\n');
  assert.deepEqual(frames(pytest), ['app/store.py:8 load', 'tests/test_store.py:5 test_load'], 'innermost first, as for Python');
  // Its summary's node ids name a test after its file, which is no qualifier (`py.test_load`).
  const summary = 'FAILED tests/test_store.py::test_load - EOFError\nFAILED tests/test_store.py::TestCache::test_evict[lru] - KeyError';
  assert.deepEqual(symbols(summary), ['test_load', 'TestCache.test_evict', 'TestCache', 'test_evict']);
  assert.deepEqual(extractClues(summary).paths, ['tests/test_store.py']);
  const asan =
    '==1==ERROR: AddressSanitizer: heap-use-after-free\n    #0 0x4f1e2b in Cache::evict(int) /src/engine/cache.cpp:42:7\n    #1 0x4f2a10 in main /src/engine/main.cpp:10:3';
  assert.deepEqual(frames(asan), ['/src/engine/cache.cpp:42 Cache.evict', '/src/engine/main.cpp:10 main']);
  const gdb = '#0  0x00005555555551a9 in parse_header (buf=0x0, len=4) at src/http/parser.c:118\n#1  handle_request (c=0x5555) at src/http/server.c:77';
  assert.deepEqual(frames(gdb), ['src/http/parser.c:118 parse_header', 'src/http/server.c:77 handle_request']);
  assert.deepEqual(frames('Assertion failed: (len > 0), function parse_header, file src/http/parser.c, line 118.'), ['src/http/parser.c:118']);
});

test('a compiler error gives the file and line, and its message', () => {
  const clues = extractClues("native/buffer.c:42:17: error: 'capacity' undeclared (first use in this function)\nsrc/lib/parse.cpp(88,3): warning C4244");
  assert.deepEqual(
    clues.frames.map((f) => `${f.path}:${f.line}`),
    ['native/buffer.c:42', 'src/lib/parse.cpp:88'],
  );
  assert.ok(clues.messages.includes("'capacity' undeclared (first use in this function)"));
});

test("a warning's message and Maven's report of javac's error give their messages, and Maven's place its file and line", () => {
  const clues = extractClues(
    [
      'tr: warning: an unescaped backslash at end of string is not portable',
      'native/buffer.c:51:9: warning: unused variable [-Wunused-variable]',
      '[ERROR] COMPILATION ERROR :',
      '[ERROR] /home/ci/app/src/main/java/com/acme/GenericsClass.java:[8,1] wrong number of type arguments; required 3',
    ].join('\n'),
  );
  assert.deepEqual(
    clues.frames.map((f) => `${f.path}:${f.line}`),
    ['native/buffer.c:51', '/home/ci/app/src/main/java/com/acme/GenericsClass.java:8'],
  );
  assert.deepEqual(clues.messages, [
    'an unescaped backslash at end of string is not portable',
    'unused variable [-Wunused-variable]',
    'wrong number of type arguments; required 3',
  ]);
});

test('PHP and Ruby frames give paths, lines and methods; a PHP entry names the function the line calls, which holds the entry before it', () => {
  const php = [
    'PHP Fatal error:  Uncaught TypeError: Cart::total(): Return value must be of type int in /var/www/src/Cart.php:31',
    'Stack trace:',
    '#0 /var/www/src/Checkout.php(54): App\\Cart->total()',
    '#1 /var/www/src/Checkout.php(20): App\\Checkout->summary()',
    '#2 /var/www/public/index.php(9): App\\Checkout->run()',
    '#3 {main}',
  ].join('\n');
  assert.deepEqual(frames(php), [
    '/var/www/src/Cart.php:31 Cart.total',
    '/var/www/src/Checkout.php:54 Checkout.summary',
    '/var/www/src/Checkout.php:20 Checkout.run',
    '/var/www/public/index.php:9',
  ]);
  const second = ['#0 /var/www/src/Mailer.php(12): App\\Smtp->send()', '#1 /var/www/src/Queue.php(40): App\\Mailer->deliver()'].join('\n');
  assert.deepEqual(
    frames(`${php.replace('\n#3 {main}', '')}\n${second}`).slice(-3),
    ['/var/www/public/index.php:9', '/var/www/src/Mailer.php:12 Mailer.deliver', '/var/www/src/Queue.php:40'],
    "a second trace's #0 names no frame of the first",
  );
  const ruby =
    "app/models/user.rb:42:in 'validate_email': undefined method 'downcase' for nil (NoMethodError)\n\tfrom app/controllers/users_controller.rb:10:in `create'";
  assert.deepEqual(frames(ruby), ['app/models/user.rb:42 validate_email', 'app/controllers/users_controller.rb:10 create']);
});

test('a C# frame gives its Windows path with forward slashes', () => {
  assert.deepEqual(frames('   at Acme.Orders.OrderService.PlaceOrder(Cart cart) in C:\\src\\Acme\\Orders\\OrderService.cs:line 27'), [
    'C:/src/Acme/Orders/OrderService.cs:27 OrderService.PlaceOrder',
  ]);
});

test('prose gives paths, qualified names, backticked identifiers and quoted messages, but no abbreviations', () => {
  const clues = extractClues(fixture('issue-words.md'));
  assert.deepEqual(clues.paths, ['settings.toml']);
  assert.ok(clues.messages.includes("unknown setting 'timeout' in section 'http'"));
  const prose = extractClues('See e.g. `Router.dispatch()` and os.path.join, or call parse_config(); v1.2.3 broke `retryWithBackoff`.');
  assert.deepEqual(
    prose.symbols.map((s) => (s.qualifier ? `${s.qualifier}.${s.name}` : s.name)),
    ['Router.dispatch', 'retryWithBackoff', 'path.join', 'parse_config'],
  );
});

test("a name inside a hyphenated word is that word's part, not a name: a target triple, a plugin's or a package's name", () => {
  const text = [
    'rustc 1.82.0 (x86_64-unknown-linux-gnu), on a MacBook-Pro',
    'rubocop-rspec_rails 2.30.0, fluent-plugin-kubernetes_metadata_filter 3.4.0',
    'parse_config() fails when load_settings runs first',
  ].join('\n');
  assert.deepEqual(
    extractClues(text).symbols.map((s) => s.name),
    ['parse_config', 'load_settings'],
  );
});

test("a link and an email address name no code, and a link's host and an address give no words; a link's path does, and a link to a file is a path", () => {
  const text = [
    'Reproduction: https://codepen.io/charlier/pen/dyMgMQR (see https://developer.mozilla.org/en-US/docs/Web/HTML/Element/progress)',
    'Written as a [heredoc](https://caddyserver.com/docs/caddyfile/concepts#heredocs) it fails',
    'The check is at https://github.com/preactjs/preact/blob/main/src/diff/props.js#L109 in setProperty',
    'It printed harvey.msgr..titus@russel-von.example; mail charlier@example.org',
  ].join('\n');
  const clues = extractClues(text);
  assert.deepEqual(symbols(text), ['setProperty']);
  assert.deepEqual(frames(text), ['src/diff/props.js:109']);
  const words = clues.words.map((w) => w.word);
  for (const elsewhere of ['codepen', 'mozilla', 'developer', 'caddyserver', 'harvey', 'titus', 'russel', 'example'])
    assert.ok(!words.includes(elsewhere), `${elsewhere} is a host's or an address's`);
  for (const said of ['reproduction', 'check', 'heredoc', 'heredocs', 'concepts', 'element', 'progress'])
    assert.ok(words.includes(said), `${said} is the issue's or its links' path's`);
});

test('self, this and anonymous receivers are no qualifiers', () => {
  assert.deepEqual(splitSymbol('self.load'), { name: 'load', text: 'self.load' });
  assert.deepEqual(splitSymbol('Object.<anonymous>'), undefined);
  assert.deepEqual(splitSymbol('(*Consumer).Poll'), { name: 'Poll', qualifier: 'Consumer', text: '(*Consumer).Poll' });
});

test("a chain's name keeps what its qualifier is in, for a qualifier that is a value and not a type", () => {
  assert.deepEqual(splitSymbol('Faker::Internet.unique.email'), {
    name: 'email',
    qualifier: 'unique',
    outer: 'Internet',
    text: 'Faker::Internet.unique.email',
  });
  assert.deepEqual(splitSymbol('FieldNamingPolicy.LOWER_CASE_WITH_UNDERSCORES.translateName()'), {
    name: 'translateName',
    qualifier: 'LOWER_CASE_WITH_UNDERSCORES',
    outer: 'FieldNamingPolicy',
    text: 'FieldNamingPolicy.LOWER_CASE_WITH_UNDERSCORES.translateName()',
  });
  assert.deepEqual(splitSymbol('this.client.post'), { name: 'post', qualifier: 'client', text: 'this.client.post' });
});

test('paths lose file://, webpack:// and ./ prefixes; Node internals are no paths', () => {
  assert.equal(normalisePath('file:///home/u/a.js'), '/home/u/a.js');
  assert.equal(normalisePath('./src/a.ts'), 'src/a.ts');
  assert.equal(normalisePath('webpack://my-app/./src/a.ts'), '/src/a.ts');
  assert.equal(normalisePath('webpack-internal:///./src/a.ts'), '/src/a.ts');
  assert.equal(normalisePath('node:internal/modules/cjs/loader'), undefined);
});

test('a long paste is read only up to its bound, and quickly', () => {
  const frame = '    at handler (/srv/app/src/handler.js:10:5)\n';
  const huge = frame.repeat(50) + 'x'.repeat(MAX_INPUT_CHARS * 2) + '\n    at late (/srv/app/src/late.js:1:1)\n';
  const started = performance.now();
  const clues = extractClues(huge);
  assert.ok(performance.now() - started < 500, 'bounded work');
  assert.deepEqual(
    clues.frames.map((f) => f.path),
    ['/srv/app/src/handler.js'],
    'one frame however often repeated, and nothing past the bound',
  );
});
