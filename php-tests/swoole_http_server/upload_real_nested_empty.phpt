--TEST--
swoole_http_server: uploads are real uploads (is_uploaded_file, move_uploaded_file), nested input names, http_parse_files, an empty file input
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

function multipart(string $b): string
{
    $part = fn ($name, $file, $type, $data) => "--$b\r\nContent-Disposition: form-data; name=\"$name\"; filename=\"$file\"\r\n"
        . "Content-Type: $type\r\n\r\n$data\r\n";
    return $part('file', 'a.txt', 'text/plain', 'AAA')
        . $part('form[file]', 'b.txt', 'text/plain', 'BB')
        . $part('form[group][file]', 'c.bin', 'application/x-c', 'C')
        . $part('empty', '', 'application/octet-stream', '')
        . "--$b--\r\n";
}

$handler = function ($req, $resp) {
    $files = $req->files;
    $out = [];
    if (($req->get['parsed'] ?? '') === '1') {
        $out['form_names'] = $files['form']['name'] ?? null;
        $out['form_sizes'] = $files['form']['size'] ?? null;
        $out['group_tmp_is_upload'] = is_uploaded_file($files['form']['tmp_name']['group']['file'] ?? '');
    } else {
        $f = $files['file'];
        $out['is_uploaded'] = is_uploaded_file($f['tmp_name']);
        $out['not_uploaded'] = is_uploaded_file(__FILE__);
        $dest = sys_get_temp_dir() . '/rsw_moved_' . getmypid();
        $out['moved'] = move_uploaded_file($f['tmp_name'], $dest);
        $out['moved_content'] = @file_get_contents($dest);
        @unlink($dest);
        $out['moved_again'] = @move_uploaded_file($f['tmp_name'], $dest);
        $out['nested'] = [$files['form']['file']['name'] ?? null, $files['form']['group']['file']['type'] ?? null];
        $out['nested_upload'] = is_uploaded_file($files['form']['file']['tmp_name'] ?? '');
        $out['empty'] = $files['empty'] ?? null;
    }
    $resp->end(json_encode($out));
};

foreach ([false, true] as $parsed) {
    rsw_run_server(rsw_http_server_fn($handler, ['http_parse_files' => $parsed]), function ($port) use ($parsed) {
        $b = 'XyZbound' . mt_rand();
        $body = multipart($b);
        $r = rsw_request($port, 'POST', $parsed ? '/?parsed=1' : '/', ['Content-Type' => "multipart/form-data; boundary=$b"], $body);
        echo $r['body'], "\n";
    });
}
?>
--EXPECT--
{"is_uploaded":true,"not_uploaded":false,"moved":true,"moved_content":"AAA","moved_again":false,"nested":["b.txt","application\/x-c"],"nested_upload":true,"empty":{"type":"","tmp_name":"","size":0,"name":"","error":4}}
{"form_names":{"file":"b.txt","group":{"file":"c.bin"}},"form_sizes":{"file":2,"group":{"file":1}},"group_tmp_is_upload":true}
