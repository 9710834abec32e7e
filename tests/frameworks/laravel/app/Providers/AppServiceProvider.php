<?php
// app/Providers/AppServiceProvider.php: loads routes/web.php and registers an Octane tick.
namespace App\Providers;

use Illuminate\Support\Facades\Route;
use Illuminate\Support\ServiceProvider;
use Laravel\Octane\Facades\Octane;

class AppServiceProvider extends ServiceProvider
{
    public function boot()
    {
        Route::middleware('web')->group(base_path('routes/web.php'));
        if (class_exists(Octane::class) && getenv('OCTANE_TICK_FILE')) {
            Octane::tick('write-tick', function () {
                file_put_contents(getenv('OCTANE_TICK_FILE'), getmypid()."\n", FILE_APPEND);
            })->seconds(1);
        }
    }
}
