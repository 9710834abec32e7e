--TEST--
swoole_runtime: curl hook: the options ordinary code uses give in a coroutine what ext/curl gives outside one (POST, RETURNTRANSFER off, WRITEFUNCTION/HEADERFUNCTION, HEADER, NOBODY, PUT upload, redirects, multipart, cookies, auth, encoding, copy_handle, getinfo)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/curl.inc'; if (!rsw_have_ext('curl')) die('skip ext/curl not available'); ?>
--FILE--
<?php
require __DIR__ . '/curl.inc';
$far = rsw_curl_far();
echo rsw_curl_run(<<<PHP
\$base = 'http://127.0.0.1:{$far->port}';
function scenario(string \$base): array
{
    \$out = [];
    \$j = fn (\$s) => json_decode((string) \$s, true);
    \$new = function (string \$path, array \$opt = []) use (\$base) {
        \$ch = curl_init(\$base . \$path);
        curl_setopt_array(\$ch, \$opt);
        return \$ch;
    };
    \$ch = \$new('/echo?a=1', [CURLOPT_RETURNTRANSFER => true, CURLOPT_POSTFIELDS => 'x=1&y=2',
        CURLOPT_HTTPHEADER => ['X-Test: abc', 'Accept:']]);
    \$r = \$j(curl_exec(\$ch));
    \$out[] = 'post: ' . \$r['method'] . ' ' . \$r['uri'] . ' ' . \$r['body'] . ' ' . \$r['headers']['x-test'] . ' '
        . \$r['headers']['content-type'] . ' accept=' . var_export(\$r['headers']['accept'] ?? null, true)
        . ' code=' . curl_getinfo(\$ch, CURLINFO_HTTP_CODE) . ' ct=' . curl_getinfo(\$ch, CURLINFO_CONTENT_TYPE)
        . ' errno=' . curl_errno(\$ch) . ' error=' . var_export(curl_error(\$ch), true);
    \$info = curl_getinfo(\$ch);
    \$out[] = 'info keys: ' . implode(',', array_keys(\$info));
    \$out[] = 'info: url=' . \$info['url'] . ' header_size>0=' . var_export(\$info['header_size'] > 0, true)
        . ' primary_ip=' . \$info['primary_ip'] . ' method=' . \$info['effective_method'] . ' total_time>0=' . var_export(\$info['total_time'] > 0, true);

    ob_start();
    \$ch = \$new('/echo?print=1');
    \$ret = curl_exec(\$ch);
    \$printed = ob_get_clean();
    \$out[] = 'no RETURNTRANSFER: returned ' . var_export(\$ret, true) . ', printed ' . \$j(\$printed)['uri'];

    \$chunks = '';
    \$lines = [];
    \$ch = \$new('/echo?cb=1', [
        CURLOPT_WRITEFUNCTION => function (\$h, \$d) use (&\$chunks) { \$chunks .= \$d; return strlen(\$d); },
        CURLOPT_HEADERFUNCTION => function (\$h, \$l) use (&\$lines) { \$lines[] = \$l; return strlen(\$l); },
    ]);
    \$ret = curl_exec(\$ch);
    \$far = array_values(array_filter(\$lines, fn (\$l) => stripos(\$l, 'x-far:') === 0));
    \$out[] = 'callbacks: ' . var_export(\$ret, true) . ' ' . \$j(\$chunks)['uri'] . ' first=' . json_encode(substr(\$lines[0], 0, 12))
        . ' x-far=' . json_encode(\$far) . ' last=' . json_encode(end(\$lines))
        . ' header_size=sum: ' . var_export(curl_getinfo(\$ch, CURLINFO_HEADER_SIZE) === strlen(implode('', \$lines)), true);

    \$ch = \$new('/echo', [CURLOPT_WRITEFUNCTION => fn (\$h, \$d) => 0]);
    \$out[] = 'write callback refusing: ' . var_export(curl_exec(\$ch), true) . ' errno=' . curl_errno(\$ch);

    \$ch = \$new('/echo?h=1', [CURLOPT_RETURNTRANSFER => true, CURLOPT_HEADER => true]);
    \$r = curl_exec(\$ch);
    \$hs = curl_getinfo(\$ch, CURLINFO_HEADER_SIZE);
    \$out[] = 'HEADER: ' . substr(\$r, 0, 15) . ' body=' . \$j(substr(\$r, \$hs))['uri'];

    \$ch = \$new('/echo', [CURLOPT_RETURNTRANSFER => true, CURLOPT_NOBODY => true]);
    \$out[] = 'NOBODY: ' . var_export(curl_exec(\$ch), true) . ' code=' . curl_getinfo(\$ch, CURLINFO_HTTP_CODE);

    \$data = str_repeat('u', 40000);
    \$off = 0;
    \$ch = \$new('/echo', [CURLOPT_RETURNTRANSFER => true, CURLOPT_UPLOAD => true, CURLOPT_INFILESIZE => strlen(\$data),
        CURLOPT_READFUNCTION => function (\$h, \$fd, \$len) use (\$data, &\$off) { \$c = substr(\$data, \$off, \$len); \$off += strlen(\$c); return \$c; }]);
    \$r = \$j(curl_exec(\$ch));
    \$out[] = 'upload: ' . \$r['method'] . ' ' . strlen(\$r['body']) . ' ' . var_export(\$r['body'] === \$data, true);

    \$ch = \$new('/echo', [CURLOPT_RETURNTRANSFER => true, CURLOPT_CUSTOMREQUEST => 'DELETE']);
    \$out[] = 'custom: ' . \$j(curl_exec(\$ch))['method'];

    \$ch = \$new('/redir', [CURLOPT_RETURNTRANSFER => true]);
    \$r = curl_exec(\$ch);
    \$out[] = 'redirect not followed: ' . curl_getinfo(\$ch, CURLINFO_HTTP_CODE) . ' ' . \$r . ' ' . substr(curl_getinfo(\$ch, CURLINFO_REDIRECT_URL), -20);
    \$ch = \$new('/redir', [CURLOPT_RETURNTRANSFER => true, CURLOPT_FOLLOWLOCATION => true]);
    \$r = \$j(curl_exec(\$ch));
    \$out[] = 'redirect followed: ' . curl_getinfo(\$ch, CURLINFO_HTTP_CODE) . ' ' . \$r['uri'] . ' count=' . curl_getinfo(\$ch, CURLINFO_REDIRECT_COUNT)
        . ' url=' . substr(curl_getinfo(\$ch, CURLINFO_EFFECTIVE_URL), -16);
    \$ch = \$new('/redir', [CURLOPT_RETURNTRANSFER => true, CURLOPT_FOLLOWLOCATION => true, CURLOPT_MAXREDIRS => 0]);
    \$out[] = 'maxredirs 0: ' . var_export(curl_exec(\$ch), true) . ' errno=' . curl_errno(\$ch);

    \$ch = \$new('/echo', [CURLOPT_RETURNTRANSFER => true, CURLOPT_POSTFIELDS => ['f' => 'v', 'up' => new CURLStringFile('filedata', 'a.txt', 'text/plain')]]);
    \$r = \$j(curl_exec(\$ch));
    \$out[] = 'multipart: ' . json_encode(\$r['post']) . ' ' . json_encode(\$r['files']) . ' ' . explode(';', \$r['headers']['content-type'])[0];

    \$ch = \$new('/echo', [CURLOPT_RETURNTRANSFER => true, CURLOPT_COOKIE => 'c1=v1; c2=v2', CURLOPT_USERAGENT => 'ua/1',
        CURLOPT_USERPWD => 'user:pw', CURLOPT_ENCODING => '', CURLOPT_REFERER => 'http://ref/']);
    \$r = \$j(curl_exec(\$ch));
    \$h = \$r['headers'];
    \$out[] = 'headers: ' . json_encode(\$r['cookies']) . ' | ' . \$h['user-agent'] . ' | ' . \$h['authorization'] . ' | gzip:'
        . var_export(str_contains(\$h['accept-encoding'], 'gzip'), true) . ' | ' . \$h['referer'];

    \$ch = \$new('/echo?copy=1', [CURLOPT_RETURNTRANSFER => true]);
    \$c2 = curl_copy_handle(\$ch);
    \$out[] = 'copy: ' . \$j(curl_exec(\$c2))['uri'];
    curl_reset(\$ch);
    curl_setopt(\$ch, CURLOPT_URL, \$base . '/echo?reset=1');
    ob_start();
    curl_exec(\$ch);
    \$out[] = 'reset: ' . \$j(ob_get_clean())['uri'];

    \$file = tmpfile();
    \$ch = \$new('/echo?file=1', [CURLOPT_FILE => \$file]);
    curl_exec(\$ch);
    rewind(\$file);
    \$out[] = 'FILE: ' . \$j(stream_get_contents(\$file))['uri'];
    return \$out;
}
\$native = scenario(\$base);
\$hooked = null;
Co\\run(function () use (&\$hooked, \$base) {
    // Proof the hooked path ran: another coroutine advances while a request is in flight.
    \$ticks = 0;
    go(function () use (&\$ticks) { for (\$i = 0; \$i < 3; \$i++) { Swoole\Coroutine::sleep(0.05); \$ticks++; } });
    \$ch = curl_init(\$base . '/slow');
    curl_setopt(\$ch, CURLOPT_RETURNTRANSFER, true);
    curl_exec(\$ch);
    echo 'other coroutine ran during curl_exec: ', \$ticks, "\\n";
    \$hooked = scenario(\$base);
});
foreach (\$hooked as \$i => \$line) {
    echo \$line === \$native[\$i] ? 'same  ' : "DIFF (native: {\$native[\$i]})\\n      ", \$line, "\\n";
}
PHP);
$far->stop();
?>
--EXPECTF--
other coroutine ran during curl_exec: 3
same  post: POST /echo?a=1 x=1&y=2 abc application/x-www-form-urlencoded accept=NULL code=200 ct=application/json errno=0 error=''
same  info keys: url,content_type,http_code,header_size,request_size,filetime,ssl_verify_result,redirect_count,total_time,namelookup_time,connect_time,pretransfer_time,size_upload,size_download,speed_download,speed_upload,download_content_length,upload_content_length,starttransfer_time,redirect_time,redirect_url,primary_ip,certinfo,primary_port,local_ip,local_port,http_version,protocol,ssl_verifyresult,scheme,appconnect_time_us,connect_time_us,namelookup_time_us,pretransfer_time_us,redirect_time_us,starttransfer_time_us,total_time_us,effective_method
same  info: url=http://127.0.0.1:%d/echo?a=1 header_size>0=true primary_ip=127.0.0.1 method=POST total_time>0=true
same  no RETURNTRANSFER: returned true, printed /echo?print=1
same  callbacks: true /echo?cb=1 first="HTTP\/1.1 200" x-far=["X-Far: yes\r\n"] last="\r\n" header_size=sum: true
same  write callback refusing: false errno=23
same  HEADER: HTTP/1.1 200 OK body=/echo?h=1
same  NOBODY: '' code=200
same  upload: PUT 40000 true
same  custom: DELETE
same  redirect not followed: 302 moved %s/echo?from=redir
same  redirect followed: 200 /echo?from=redir count=1 url=/echo?from=redir
same  maxredirs 0: false errno=47
same  multipart: {"f":"v"} {"up":["a.txt",8]} multipart/form-data
same  headers: {"c1":"v1","c2":"v2"} | ua/1 | Basic dXNlcjpwdw== | gzip:true | http://ref/
same  copy: /echo?copy=1
same  reset: /echo?reset=1
same  FILE: /echo?file=1
