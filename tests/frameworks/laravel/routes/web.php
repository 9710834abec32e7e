<?php
// routes/web.php: one route per behaviour the Octane check asserts.
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\Route;
use Laravel\Octane\Facades\Octane;

Route::get('/', fn () => 'hello from laravel');
Route::get('/json', fn () => ['ok' => true, 'n' => 42]);
Route::get('/query', fn (Request $r) => ['x' => $r->query('x'), 'all' => $r->query()]);
Route::post('/form', fn (Request $r) => ['name' => $r->input('name'), 'tags' => $r->input('tags')]);
Route::get('/cookie/set', fn () => response('set')->cookie('flavour', 'oat', 10));
Route::get('/cookie/get', fn (Request $r) => ['flavour' => $r->cookie('flavour')]);
Route::post('/upload', function (Request $r) {
    $f = $r->file('doc');
    if (! $f || ! $f->isValid()) {
        return response(['error' => 'no valid file'], 422);
    }
    $path = $f->storeAs('uploads', 'u'.getmypid().'.bin');
    return ['name' => $f->getClientOriginalName(), 'size' => $f->getSize(),
        'stored' => strlen(file_get_contents(storage_path('app/'.$path)))];
});
Route::get('/stream', fn () => response()->stream(function () {
    foreach (['a', 'b', 'c'] as $part) {
        echo $part."\n";
        flush();
    }
}));
Route::get('/download', fn () => response()->download(public_path('static.txt'), 'file.txt'));
Route::get('/fail', function () {
    throw new RuntimeException('boom from a route');
});
Route::get('/table/{key}/{value}', function ($key, $value) {
    Octane::table('example')->set($key, ['name' => $value, 'votes' => 1]);
    return Octane::table('example')->get($key);
});
Route::get('/table/{key}', fn ($key) => ['row' => Octane::table('example')->get($key), 'count' => Octane::table('example')->count(), 'pid' => getmypid()]);
Route::get('/cache/put/{v}', fn ($v) => ['put' => Cache::store('octane')->put('k', $v, 60)]);
Route::get('/cache/get', fn () => ['v' => Cache::store('octane')->get('k'), 'pid' => getmypid()]);
Route::get('/concurrently', function () {
    $t = microtime(true);
    [$a, $b] = Octane::concurrently([
        fn () => (usleep(300000) ?? 0) + getmypid(),
        fn () => (usleep(300000) ?? 0) + getmypid(),
    ], 5000);
    return ['a' => $a, 'b' => $b, 'ms' => (int) ((microtime(true) - $t) * 1000), 'worker' => getmypid()];
});
Route::get('/pid', fn () => ['pid' => getmypid()]);
Route::get('/slow/{s}', function ($s) {
    $end = microtime(true) + (float) $s;
    while (microtime(true) < $end) {
        // busy: the watchdog must answer for us
    }
    return 'finished';
});
